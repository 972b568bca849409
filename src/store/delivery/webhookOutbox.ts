import type { ServerStore } from '../store.js';
import type { StoreContext } from '../storeContext.js';
import type { CallStatement, ClaimedCall } from '../vocabulary/deliveryShapes.js';
import type { DueCall } from '../engine/deliverySteps.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** The due calls by tenant, each tenant's in the order found. */
const byTenant = (due: readonly DueCall[]): Map<number, string[]> => {
  const tenants = new Map<number, string[]>();
  for (const { tenantId, id } of due) tenants.set(tenantId, [...(tenants.get(tenantId) ?? []), id]);
  return tenants;
};

/**
 * The outbox of webhook calls as the delivery worker uses it (docs/administration.md#delivery):
 * the due calls found across tenants by a read on the primary, then a tenant's claimed together
 * in one transaction of that tenant that also reads what each call is made of as it is then (a
 * statement read once for all its calls); an attempt recorded with the call's new state in one
 * transaction.
 */
export function webhookOutbox({ engine, inTurn }: StoreContext): Pick<ServerStore, 'claimWebhookCalls' | 'recordWebhookAttempt' | 'webhookQueue'> {
  return {
    async claimWebhookCalls({ owner, now, until, limit }) {
      const [nowText, untilText] = [iso(now), iso(until)];
      // A read first: a server with nothing to send writes nothing.
      const due = await inTurn(() => engine.reads.dueWebhookCalls(nowText, limit));
      const claimed: ClaimedCall[] = [];
      for (const [tenantId, ids] of byTenant(due)) {
        const calls = await engine.inWriteTransaction(async (writeSteps): Promise<ClaimedCall[]> => {
          const steps = writeSteps.deliverySteps();
          const statements = new Map<string, CallStatement | undefined>();
          const taken: ClaimedCall[] = [];
          for (const id of ids) {
            const stored = await steps.claimCall(tenantId, id, owner, nowText, untilText);
            if (!stored) continue;
            const { userId, month, ...rest } = stored;
            const key = `${month} ${userId}`;
            if (!statements.has(key)) statements.set(key, await steps.callStatement(tenantId, userId, month));
            taken.push({ tenantId, id, ...rest, statement: statements.get(key) });
          }
          return taken;
        });
        claimed.push(...calls);
      }
      return claimed;
    },
    webhookQueue: () => inTurn(() => engine.reads.webhookQueue()),
    recordWebhookAttempt: (attempt) => engine.inWriteTransaction(async (steps) => steps.deliverySteps().recordAttempt(attempt)),
  };
}
