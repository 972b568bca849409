import { expiryAfter } from '../../domain/sandboxExpiry.js';
import { keyIdOf, newKey } from '../apiKeys.js';
import { textCheckFor } from '../loading/loadChecks.js';
import { TenantLoader } from '../loading/tenantLoader.js';
import type { KeyCheck } from '../requests/keyCheck.js';
import type { AdminStore } from '../store.js';
import type { StoreContext } from '../storeContext.js';
import type { WriteSteps } from '../engine/transactionSteps.js';
import type { SandboxMaking } from '../vocabulary/adminShapes.js';
import { CreateKeyTaken, TenantNotEmpty, TooManySandboxes, UnknownTenant } from '../vocabulary/storeErrors.js';
import { REMEMBERED_FOR_MS } from '../../domain/idempotencyKeys.js';
import { datasetReads } from './datasetReading.js';
import { checkInvariants } from './invariantCheck.js';
import { copyFromOrigin, copyInto, dropStaleOrigins, dropUnusedOrigin } from './sandboxCopies.js';

/** What administration.ts implements; statuses and webhooks have files of their own. */
type AdministrationCore = Omit<
  AdminStore,
  | 'changeStatementStatus' | 'createWebhookEndpoint' | 'listWebhookEndpoints' | 'updateWebhookEndpoint' | 'deleteWebhookEndpoint' | 'rotateWebhookSecrets'
  | 'listWebhookCalls' | 'webhookCall' | 'resendWebhookCall'
>;

/**
 * Administration over any engine: tenants and their keys (docs/rules.md#keys), loads in one
 * transaction of the tenant, exports from one snapshot, the database's checks, backup and
 * compaction. The one implementation behind every command that administers data.
 */
export function administration({ engine }: StoreContext, keyChecks: Pick<KeyCheck, 'forget'>): AdministrationCore {
  const { reads, keys } = engine;
  const checkText = textCheckFor(engine.textHoldsNul);
  return {
    findTenant: async (name) => reads.findTenant(name),
    createKey: (tenantName, scope = 'write', { mustExist = false } = {}) =>
      engine.inWriteTransaction(async (steps) => {
        const tenant = mustExist ? await steps.findTenant(tenantName) : await steps.ensureTenant(tenantName);
        if (!tenant) throw new UnknownTenant(`no tenant named ${JSON.stringify(tenantName)}`);
        const { id, key, secretHash } = newKey();
        await steps.insertKey({ id, tenantId: tenant.id, secretHash, createdAt: new Date().toISOString(), scope });
        return { id, key };
      }),
    async revokeKey(keyOrId) {
      const revoked = await keys.revoke(keyIdOf(keyOrId), new Date().toISOString());
      // A commit on the read connection itself, which its change counter does not count.
      keyChecks.forget();
      return revoked;
    },
    listKeys: async (tenantName) => keys.list(tenantName),
    listTenants: ({ after, limit }) =>
      engine.inSnapshot(async ({ reads: snapshot }) => {
        const rows = await snapshot.tenantsAfter(after ?? null, limit);
        const summaries = [];
        for (const { id, name, createdAt } of rows) summaries.push({ name, createdAt, ...(await snapshot.tenantSizes(id)) });
        return summaries;
      }),
    async deleteTenant(name, { expiredAt } = {}) {
      const deleted = await engine.inWriteTransaction(async (steps) => {
        const tenant = await steps.findTenant(name);
        if (!tenant) return false;
        // Writers of the tenant (a bulk, an import) finish first; later ones find no tenant.
        await steps.lockTenant(tenant.id);
        if (expiredAt !== undefined) {
          const expiresAt = (await steps.expiry(tenant.id))?.expiresAt ?? null;
          if (expiresAt === null || expiresAt > new Date(expiredAt).toISOString()) return false;
        }
        const origin = (await steps.recipe(tenant.id))?.origin;
        await steps.deleteTenant(tenant.id);
        if (origin !== undefined && origin !== null) await dropUnusedOrigin(steps, origin);
        // A template's origins go with it, but those that sandboxes still name.
        await dropStaleOrigins(steps, tenant.id);
        return true;
      });
      // Its keys, remembered as valid by this process, are forgotten at once.
      if (deleted) keyChecks.forget();
      return deleted;
    },
    setSandboxTtl: (name, ttlSeconds, now) =>
      engine.inWriteTransaction(async (steps) => {
        const tenant = await steps.findTenant(name);
        if (!tenant) return 'unknown';
        const expiry = { ttlSeconds, expiresAt: expiryAfter(now, ttlSeconds) };
        return (await steps.setExpiry(tenant.id, expiry)) ? expiry : 'noRecipe';
      }),
    expiredSandboxes: async (now, limit) => reads.expiredSandboxes(new Date(now).toISOString(), limit),
    loadTenant: (tenantName, options, work) =>
      engine.inWriteTransaction(async (steps) => {
        const tenant = await steps.ensureTenant(tenantName);
        await steps.lockTenant(tenant.id);
        if (options.mustBeEmpty && (await steps.hasData(tenant.id))) {
          throw new TenantNotEmpty(`tenant ${JSON.stringify(tenantName)} already has data; seed another tenant or database`);
        }
        if (options.replace) await steps.deleteData(tenant.id);
        await steps.dataChanged(tenant.id);
        const stamp = await steps.nextStamp(tenant.id, options.replace === true);
        const result = await work(await TenantLoader.open(steps.loadSteps(tenant.id), stamp, checkText));
        if (options.recipe) await steps.saveRecipe(tenant.id, await options.recipe());
        if (options.sandbox) await makeSandbox(steps, tenant.id, options.sandbox);
        return result;
      }),
    resetTenant: (tenantName, work) =>
      engine.inWriteTransaction(async (steps) => {
        const tenant = await steps.findTenant(tenantName);
        if (!tenant) return 'unknown';
        await steps.lockTenant(tenant.id);
        const recipe = await steps.recipe(tenant.id);
        if (!recipe) return 'noRecipe';
        // As a load with `replace` (compdata import --replace): the data goes, sync tokens from
        // before call for a sync from the start; besides, the tenant's requests are forgotten.
        await steps.deleteData(tenant.id);
        await steps.dropRequests(tenant.id);
        await steps.webhookSteps(tenant.id).dropPendingCalls();
        await steps.dataChanged(tenant.id);
        const stamp = await steps.nextStamp(tenant.id, true);
        if (recipe.origin !== undefined && recipe.origin !== null) await copyFromOrigin(steps, recipe.origin, tenant.id, stamp);
        else await work(recipe, await TenantLoader.open(steps.loadSteps(tenant.id), stamp, checkText));
        // Its time to live counts from the reset.
        if (recipe.ttlSeconds !== null) await steps.setExpiry(tenant.id, { ttlSeconds: recipe.ttlSeconds, expiresAt: expiryAfter(Date.now(), recipe.ttlSeconds) });
        return 'reset';
      }),
    copyTenant: (template, target, options = {}) =>
      engine.inWriteTransaction(async (steps) => {
        const copied = await copyInto(steps, template, target, options.recipe);
        if (copied === undefined) return false;
        if (options.sandbox) await makeSandbox(steps, copied, options.sandbox);
        return true;
      }),
    keptCreate: (lookup) => engine.inSnapshot(async ({ reads: snapshot }) => snapshot.keptCreate(lookup, Date.now() - REMEMBERED_FOR_MS)),
    tenantSizes: (tenantName) =>
      engine.inSnapshot(async ({ reads: snapshot }) => {
        const tenant = await snapshot.findTenant(tenantName);
        return tenant && snapshot.tenantSizes(tenant.id);
      }),
    readTenant: (tenantName, work) =>
      engine.inSnapshot(async (steps) => {
        const tenant = await steps.reads.findTenant(tenantName);
        return tenant && work(datasetReads(steps, tenant));
      }),
    check: () => engine.inSnapshot((steps) => checkInvariants(steps.invariants)),
    distribution: async () => engine.distribution?.(),
    backup: (target) => engine.backup(target),
    async compact() {
      const bytesBefore = await engine.databaseBytes();
      await engine.compact();
      return { bytesBefore, bytesAfter: await engine.databaseBytes() };
    },
  };
}

/**
 * Makes the tenant just loaded a sandbox, last in the load's transaction: its key, its expiry
 * counted from its creation, and the answer
 * kept for a retry of the create. Throws, so that nothing is written, past the cap on sandboxes
 * (counted with this one) or when another create kept its answer under the same lookup meanwhile.
 */
async function makeSandbox(steps: WriteSteps, tenantId: number, making: SandboxMaking): Promise<void> {
  const { id, key, secretHash } = newKey();
  await steps.insertKey({ id, tenantId, secretHash, createdAt: new Date().toISOString(), scope: making.scope });
  const createdAt = await steps.tenantCreatedAt(tenantId);
  // Its time to live counts from its creation as stored, so that `expires_at` is `created_at` plus it.
  const { ttlSeconds } = making;
  const expiresAt = expiryAfter(Date.parse(createdAt), ttlSeconds);
  if (ttlSeconds !== null) await steps.setExpiry(tenantId, { ttlSeconds, expiresAt });
  const kept = making.made({ key: { id, key }, createdAt, expiresAt });
  if (kept && !(await steps.keepCreate(tenantId, kept, Date.now() - REMEMBERED_FOR_MS))) throw new CreateKeyTaken('another create kept its answer under the same Idempotency-Key');
  if ((await steps.countSandboxes()) > making.maxSandboxes) throw new TooManySandboxes(`there are ${making.maxSandboxes} sandboxes already`);
}
