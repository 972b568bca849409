import type { CallLogSteps } from '../engine/callLogSteps.js';
import type { AdminStore } from '../store.js';
import type { StoreContext } from '../storeContext.js';

type CallLogAdmin = Pick<AdminStore, 'listWebhookCalls' | 'webhookCall' | 'resendWebhookCall'>;

/**
 * A tenant's log of webhook calls and their resends by hand (docs/administration.md#the-log-of-calls),
 * each operation in one transaction of the tenant, so that on Citus it goes to the tenant's node.
 */
export function webhookCallLog({ engine }: StoreContext): CallLogAdmin {
  const ofTenant = <T>(tenantName: string, work: (steps: CallLogSteps) => Promise<T>) =>
    engine.inWriteTransaction(async (steps) => {
      const tenant = await steps.findTenant(tenantName);
      if (!tenant) return 'unknownTenant' as const;
      return work(steps.webhookSteps(tenant.id));
    });
  return {
    listWebhookCalls: (tenantName, filter, { before, limit }) =>
      ofTenant(tenantName, async (steps) => steps.calls(filter, before ?? Number.MAX_SAFE_INTEGER, limit)),
    webhookCall: (tenantName, id) =>
      ofTenant(tenantName, async (steps) => {
        const call = await steps.call(id);
        return call ? { call, attempts: await steps.callAttempts(id) } : 'unknownCall';
      }),
    resendWebhookCall: (tenantName, id) =>
      ofTenant(tenantName, async (steps) => {
        if (await steps.resendCall(id, new Date().toISOString())) return (await steps.call(id))!;
        return (await steps.call(id)) ? 'pending' : 'unknownCall';
      }),
  };
}
