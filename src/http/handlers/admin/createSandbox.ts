import { randomBytes } from 'node:crypto';
import type { components } from '../../../../generated/admin.js';
import { copySandbox, seedSandbox } from '../../../dataset/sandboxes.js';
import { expiryAfter } from '../../../domain/sandboxExpiry.js';
import type { SandboxExpiry } from '../../../store/vocabulary/adminShapes.js';
import type { AdminStore } from '../../../store/store.js';
import { TenantNotEmpty } from '../../../store/vocabulary/storeErrors.js';
import type { OperationHandler } from '../../handlerTypes.js';
import { problems } from '../../problems.js';
import type { AdminDeps } from './adminDeps.js';

type SandboxRequest = components['schemas']['SandboxRequest'];
type Sandbox = components['schemas']['Sandbox'];

/** The sizes of a sandbox when the request says none (openapi/admin.yaml). */
const DEFAULTS = { users: 20, records: 100, seed: 'compdata' };

/** The seed parameters, which a `template` excludes. */
const SEED_FIELDS = ['users', 'records', 'seed'] as const;

/**
 * `POST /admin/v1/sandboxes`: a new tenant filled as `compdata seed` fills one (src/dataset/seedTenant.ts),
 * or copied from the tenant `template` by the engine (AdminStore.copyTenant), in one transaction, then a
 * key for it. A name given that a tenant has is a 409; a template no tenant has, a 404. Its time to
 * live (the request's, or the server's default) counts from the request's start, as `created_at`.
 */
export const createSandbox =
  ({ store, sandboxTtlSeconds }: AdminDeps): OperationHandler =>
  async (_api, ctx) => {
    const request = (ctx.state.body ?? {}) as SandboxRequest;
    const both = request.template === undefined ? [] : SEED_FIELDS.filter((field) => request[field] !== undefined);
    if (both.length > 0) {
      const errors = both.map((field) => ({ pointer: `/body/${field}`, message: 'must not be given with template' }));
      throw problems.badRequest(errors, 'A sandbox is copied from a template or generated from seed parameters, not both.');
    }
    const name = request.name ?? `sandbox-${randomBytes(8).toString('hex')}`;
    const scope = request.key_scope ?? 'write';
    if (await store.findTenant(name)) throw problems.conflict(`A tenant named ${name} exists.`);
    const started = Date.now();
    const createdAt = new Date(started).toISOString();
    const ttlSeconds = request.ttl_seconds === undefined ? sandboxTtlSeconds : request.ttl_seconds;
    const expiry: SandboxExpiry = { ttlSeconds, expiresAt: expiryAfter(started, ttlSeconds) };
    try {
      await fill(store, name, request, expiry);
    } catch (error) {
      // Another request made the tenant meanwhile.
      if (error instanceof TenantNotEmpty) throw problems.conflict(`A tenant named ${name} exists.`);
      throw error;
    }
    const key = await store.createKey(name, scope);
    const body: Sandbox = { tenant: { name, created_at: createdAt, expires_at: expiry.expiresAt }, key: { id: key.id, key: key.key, scope } };
    ctx.status = 201;
    ctx.body = body;
  };

/** Fills the new tenant `name` from the template or the generator, in one transaction that keeps how (its recipe, for a reset). */
async function fill(store: AdminStore, name: string, request: SandboxRequest, expiry: SandboxExpiry): Promise<void> {
  if (request.template !== undefined) {
    if (!(await copySandbox(store, request.template, name, expiry))) throw problems.notFound(`No tenant is named ${request.template}: there is no such template.`);
    return;
  }
  await seedSandbox(store, name, { seed: String(request.seed ?? DEFAULTS.seed), users: request.users ?? DEFAULTS.users, records: request.records ?? DEFAULTS.records }, expiry);
}
