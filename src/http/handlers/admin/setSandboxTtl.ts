import type { components } from '../../../../generated/admin.js';
import type { OperationHandler } from '../../handlerTypes.js';
import { problems } from '../../problems.js';
import { pathParam, type AdminDeps } from './adminDeps.js';
import { noSuchTenant } from './tenants.js';

type TtlRequest = components['schemas']['TtlRequest'];
type SandboxTtl = components['schemas']['SandboxTtl'];

/**
 * `POST /admin/v1/tenants/{name}/ttl`: the sandbox's time to live set anew, counted from now, in one
 * transaction (docs/administration.md#time-to-live). A tenant not made as a sandbox is a 409.
 */
export const setSandboxTtl =
  ({ store }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const name = pathParam(api, 'name');
    const { ttl_seconds: ttlSeconds } = ctx.state.body as TtlRequest;
    const outcome = await store.setSandboxTtl(name, ttlSeconds, Date.now());
    if (outcome === 'unknown') throw noSuchTenant(name);
    if (outcome === 'noRecipe') throw problems.conflict(`The tenant ${name} was not made as a sandbox (POST /admin/v1/sandboxes): it has no time to live.`);
    const body: SandboxTtl = { name, ttl_seconds: outcome.ttlSeconds, expires_at: outcome.expiresAt };
    ctx.body = body;
  };
