import { randomBytes } from 'node:crypto';
import type { components } from '../../../../generated/admin.js';
import { generateSeed } from '../../../dataset/generateSeed.js';
import { seedTenant } from '../../../dataset/seedTenant.js';
import { TenantNotEmpty } from '../../../store/vocabulary/storeErrors.js';
import type { OperationHandler } from '../../handlerTypes.js';
import { problems } from '../../problems.js';
import type { AdminDeps } from './adminDeps.js';

type SandboxRequest = components['schemas']['SandboxRequest'];
type Sandbox = components['schemas']['Sandbox'];

/** The sizes of a sandbox when the request says none (openapi/admin.yaml). */
const DEFAULTS = { users: 20, records: 100, seed: 'compdata' };

/**
 * `POST /admin/v1/sandboxes`: a new tenant filled as `compdata seed` fills one (src/dataset/seedTenant.ts,
 * one transaction), then a key for it. A name given that a tenant has is a 409.
 */
export const createSandbox =
  ({ store }: AdminDeps): OperationHandler =>
  async (_api, ctx) => {
    const request = (ctx.state.body ?? {}) as SandboxRequest;
    const name = request.name ?? `sandbox-${randomBytes(8).toString('hex')}`;
    const scope = request.key_scope ?? 'write';
    if (await store.findTenant(name)) throw problems.conflict(`A tenant named ${name} exists.`);
    const dataset = generateSeed({ seed: String(request.seed ?? DEFAULTS.seed), users: request.users ?? DEFAULTS.users, records: request.records ?? DEFAULTS.records });
    const createdAt = new Date().toISOString();
    try {
      await seedTenant(store, name, dataset);
    } catch (error) {
      // Another request made the tenant meanwhile.
      if (error instanceof TenantNotEmpty) throw problems.conflict(`A tenant named ${name} exists.`);
      throw error;
    }
    const key = await store.createKey(name, scope);
    const body: Sandbox = { tenant: { name, created_at: createdAt }, key: { id: key.id, key: key.key, scope } };
    ctx.status = 201;
    ctx.body = body;
  };
