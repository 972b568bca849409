import { randomBytes } from 'node:crypto';
import type { components } from '../../../../generated/admin.js';
import { copySandbox, seedSandbox } from '../../../dataset/sandboxes.js';
import type { AdminStore } from '../../../store/store.js';
import type { SandboxMaking } from '../../../store/vocabulary/adminShapes.js';
import { CreateKeyTaken, TenantNotEmpty, TooManySandboxes } from '../../../store/vocabulary/storeErrors.js';
import type { OperationHandler } from '../../handlerTypes.js';
import { problems } from '../../problems.js';
import { idempotencyKeyOf } from '../../writeOutcome.js';
import type { AdminDeps, SandboxLimits } from './adminDeps.js';
import { createFingerprint, keptCreate } from './keptCreates.js';
import { replayedCreate } from './sandboxRetries.js';

type SandboxRequest = components['schemas']['SandboxRequest'];
type Sandbox = components['schemas']['Sandbox'];

/** The sizes of a sandbox when the request says none (openapi/admin.yaml). */
const DEFAULTS = { users: 20, records: 100, seed: 'compdata' };

/** The seed parameters, which a `template` excludes. */
const SEED_FIELDS = ['users', 'records', 'seed'] as const;

/**
 * `POST /admin/v1/sandboxes`: a new tenant filled as `compdata seed` fills one (src/dataset/seedTenant.ts),
 * or copied from the tenant `template` by the engine (AdminStore.copyTenant), and a key for it, in
 * one transaction. A name given that a tenant has is a 409; a template no tenant has, a 404; the
 * limits (docs/administration.md#limits) a 409 or a 422; a retry with the `Idempotency-Key` of a
 * create done, the first answer again. Its time to live (the request's, or the server's default)
 * counts from its creation as stored.
 */
export const createSandbox =
  ({ store, sandboxLimits, sandboxTtlSeconds }: AdminDeps): OperationHandler =>
  async (_api, ctx) => {
    const request = (ctx.state.body ?? {}) as SandboxRequest;
    const both = request.template === undefined ? [] : SEED_FIELDS.filter((field) => request[field] !== undefined);
    if (both.length > 0) {
      const errors = both.map((field) => ({ pointer: `/body/${field}`, message: 'must not be given with template' }));
      throw problems.badRequest(errors, 'A sandbox is copied from a template or generated from seed parameters, not both.');
    }
    const idempotencyKey = idempotencyKeyOf(ctx);
    const fingerprint = createFingerprint(request);
    const replayed = idempotencyKey && (await replayedCreate(store, idempotencyKey, fingerprint));
    const body = replayed || (await created(store, sandboxLimits, sandboxTtlSeconds, request, idempotencyKey === undefined ? undefined : { idempotencyKey, fingerprint }));
    if (replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.status = 201;
    ctx.body = body;
  };

/** Makes the sandbox of `request`; with `retry`, its answer is kept, in the same transaction, for a retry. */
async function created(
  store: AdminStore,
  limits: SandboxLimits,
  defaultTtlSeconds: number,
  request: SandboxRequest,
  retry: { idempotencyKey: string; fingerprint: string } | undefined,
): Promise<Sandbox> {
  const name = request.name ?? `sandbox-${randomBytes(8).toString('hex')}`;
  if (await store.findTenant(name)) throw problems.conflict(`A tenant named ${name} exists.`);
  const scope = request.key_scope ?? 'write';
  let answer: Sandbox | undefined;
  const making: SandboxMaking = {
    maxSandboxes: limits.maxSandboxes,
    scope,
    ttlSeconds: request.ttl_seconds === undefined ? defaultTtlSeconds : request.ttl_seconds,
    made({ key, createdAt, expiresAt }) {
      answer = { tenant: { name, created_at: createdAt, expires_at: expiresAt }, key: { id: key.id, key: key.key, scope } };
      return retry && keptCreate(retry.idempotencyKey, retry.fingerprint, answer, Date.now());
    },
  };
  try {
    await fill(store, limits, name, request, making);
  } catch (error) {
    // Another request made the tenant meanwhile.
    if (error instanceof TenantNotEmpty) throw problems.conflict(`A tenant named ${name} exists.`);
    if (error instanceof TooManySandboxes) throw problems.tooManySandboxes(limits.maxSandboxes);
    // A retry sent while the first was being made: its answer, now that it is.
    if (error instanceof CreateKeyTaken && retry) return (await replayedCreate(store, retry.idempotencyKey, retry.fingerprint)) || Promise.reject(error);
    throw error;
  }
  return answer!;
}

/** Fills the new tenant `name` from the template or the generator, in one transaction that keeps how (its recipe, for a reset) and makes its key. */
async function fill(store: AdminStore, limits: SandboxLimits, name: string, request: SandboxRequest, making: SandboxMaking): Promise<void> {
  if (request.template !== undefined) {
    const sizes = await store.tenantSizes(request.template);
    if (sizes && sizes.reportingRecords + sizes.tableRecords > limits.maxRecords) {
      const message = `has ${sizes.reportingRecords + sizes.tableRecords} records, more than a sandbox may have (${limits.maxRecords})`;
      throw problems.unprocessable([{ pointer: '/body/template', message }], `The template ${request.template} ${message}: nothing was made.`);
    }
    if (!sizes || !(await copySandbox(store, request.template, name, making))) throw problems.notFound(`No tenant is named ${request.template}: there is no such template.`);
    return;
  }
  const seed = { seed: String(request.seed ?? DEFAULTS.seed), users: request.users ?? DEFAULTS.users, records: request.records ?? DEFAULTS.records };
  await seedSandbox(store, name, seed, making);
}
