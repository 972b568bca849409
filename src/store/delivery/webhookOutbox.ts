import type { ServerStore } from '../store.js';
import type { StoreContext } from '../storeContext.js';
import type { ClaimedCall } from '../vocabulary/deliveryShapes.js';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The outbox of webhook calls as the delivery worker uses it (docs/administration.md#delivery):
 * the due calls found across tenants by a read on the primary, then each claimed in a transaction of its tenant that also
 * reads what the call is made of as it is then; an attempt recorded with the call's new state in
 * one transaction.
 */
export function webhookOutbox({ engine, inTurn }: StoreContext): Pick<ServerStore, 'claimWebhookCalls' | 'recordWebhookAttempt' | 'webhookQueue'> {
  return {
    async claimWebhookCalls({ owner, now, until, limit }) {
      const [nowText, untilText] = [iso(now), iso(until)];
      // A read first: a server with nothing to send writes nothing.
      const due = await inTurn(() => engine.reads.dueWebhookCalls(nowText, limit));
      const claimed: ClaimedCall[] = [];
      for (const { tenantId, id } of due) {
        const call = await engine.inWriteTransaction(async ({ deliverySteps: steps }): Promise<ClaimedCall | undefined> => {
          const stored = await steps.claimCall(tenantId, id, owner, nowText, untilText);
          if (!stored) return undefined;
          const { userId, month, ...rest } = stored;
          return { tenantId, id, ...rest, statement: await steps.callStatement(tenantId, userId, month) };
        });
        if (call) claimed.push(call);
      }
      return claimed;
    },
    webhookQueue: () => inTurn(() => engine.reads.webhookQueue()),
    recordWebhookAttempt: (attempt) => engine.inWriteTransaction(async (steps) => steps.deliverySteps.recordAttempt(attempt)),
  };
}
