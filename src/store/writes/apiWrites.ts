import type { RequestStore } from '../store.js';
import type { StoreContext } from '../storeContext.js';
import type { WriteOptions, TenantWrite, WriteOutcome, WrittenBy } from '../vocabulary/writeShapes.js';
import type { Principal } from '../vocabulary/tenancy.js';
import { unstorableGroups, unstorableUserIds } from './attributionBulk.js';
import { fingerprintOf } from '../../domain/idempotencyKeys.js';

type Writes = Pick<RequestStore, 'bulkUpsert' | 'upsertUsers' | 'archiveUsers' | 'pushRecords'>;

/**
 * The writes of the public API: each one transaction of the engine (runTenantWrite.ts runs its
 * rules), with the request's `Idempotency-Key` (docs/rules.md#retries) and, on an engine with
 * read replicas, the consistency token of its commit.
 */
export function apiWrites({ engine }: StoreContext): Writes {
  const logPosition = engine.logPosition?.bind(engine);
  /**
   * A write of the tenant, with its `Idempotency-Key` when it has one, and its outcome with,
   * once written, its consistency token: the log's position after the commit (none if the
   * server went away meanwhile).
   */
  const write = async <W extends TenantWrite>(
    principal: Principal,
    tenantWrite: W,
    options: WriteOptions = {},
    fingerprinted: readonly unknown[] = tenantWrite.items,
  ): Promise<WriteOutcome<WrittenBy<W>>> => {
    const key = options.idempotencyKey;
    const idempotency = key === undefined ? undefined : { key, fingerprint: fingerprintOf(tenantWrite.kind, fingerprinted), at: Date.now() };
    const outcome = await engine.write(principal.tenantId, { ...tenantWrite, idempotency });
    if (!('written' in outcome) || !logPosition) return outcome;
    const position = await logPosition().catch(() => undefined);
    return position === undefined ? outcome : { ...outcome, consistency: position.toString() };
  };

  return {
    async bulkUpsert(principal, items, options) {
      const unstorable = engine.textHoldsNul ? undefined : unstorableGroups(items);
      if (unstorable) return { broken: unstorable };
      return write(principal, { kind: 'attributions', items }, options);
    },
    async upsertUsers(principal, items, options) {
      const unstorable = engine.textHoldsNul ? undefined : unstorableUserIds(items);
      if (unstorable) return { broken: unstorable };
      return write(principal, { kind: 'users', items }, options);
    },
    archiveUsers: (principal, items, options) => write(principal, { kind: 'archive', items }, options),
    // The push's fingerprint is its table, flags and the hash of its lines, not its time.
    pushRecords: (principal, push, staged, options) => write(principal, { kind: 'push', items: [{ ...push, at: Date.now() }], staged }, options, [push]),
  };
}
