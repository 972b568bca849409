import { randomBytes } from 'node:crypto';
import type { WebhookSteps } from '../engine/webhookSteps.js';
import type { AdminStore } from '../store.js';
import type { StoreContext } from '../storeContext.js';
import type { WebhookEndpoint, WebhookSecrets } from '../vocabulary/webhookShapes.js';

/** An endpoint's id: `whe_` and 12 hex digits. */
const newEndpointId = (): string => `whe_${randomBytes(6).toString('hex')}`;

/**
 * New secrets: the `X-Webhook-Secret` value (64 hex digits, 256 random bits) and a Standard
 * Webhooks signing secret (`whsec_` and 32 random bytes in base64).
 */
const newSecrets = (): WebhookSecrets => ({
  secret: randomBytes(32).toString('hex'),
  signingSecret: `whsec_${randomBytes(32).toString('base64')}`,
});

/** The secrets replaced by a rotation count until `previousUntil`; listed only while they do. */
const listed = (endpoint: WebhookEndpoint, now: string): WebhookEndpoint => ({
  ...endpoint,
  previousUntil: endpoint.previousUntil !== null && endpoint.previousUntil > now ? endpoint.previousUntil : null,
});

type WebhookAdmin = Pick<
  AdminStore,
  'createWebhookEndpoint' | 'listWebhookEndpoints' | 'updateWebhookEndpoint' | 'deleteWebhookEndpoint' | 'rotateWebhookSecrets'
>;

/**
 * A tenant's webhook endpoints (docs/administration.md#webhook-endpoints), each operation in one
 * transaction of the tenant. The secrets are made here and returned only by creation and
 * rotation; listings never show them.
 */
export function webhookEndpoints({ engine }: StoreContext): WebhookAdmin {
  const ofTenant = <T>(tenantName: string, work: (steps: WebhookSteps) => Promise<T>) =>
    engine.inWriteTransaction(async (steps) => {
      const tenant = await steps.findTenant(tenantName);
      if (!tenant) return 'unknownTenant' as const;
      await steps.lockTenant(tenant.id);
      return work(steps.webhookSteps(tenant.id));
    });
  return {
    createWebhookEndpoint: (tenantName, settings) =>
      ofTenant(tenantName, async (steps) => {
        const secrets = newSecrets();
        const id = newEndpointId();
        await steps.insertEndpoint({ id, ...settings, ...secrets, createdAt: new Date().toISOString() });
        return { ...(await steps.endpoint(id))!, ...secrets };
      }),
    listWebhookEndpoints: (tenantName) =>
      ofTenant(tenantName, async (steps) => {
        const now = new Date().toISOString();
        return (await steps.endpoints()).map((endpoint) => listed(endpoint, now));
      }),
    updateWebhookEndpoint: (tenantName, id, settings) =>
      ofTenant(tenantName, async (steps) => {
        if (!(await steps.updateEndpoint(id, settings))) return 'unknownEndpoint';
        return listed((await steps.endpoint(id))!, new Date().toISOString());
      }),
    deleteWebhookEndpoint: (tenantName, id) => ofTenant(tenantName, async (steps) => ((await steps.deleteEndpoint(id)) ? 'deleted' : 'unknownEndpoint')),
    rotateWebhookSecrets: (tenantName, id, graceSeconds) =>
      ofTenant(tenantName, async (steps) => {
        const secrets = newSecrets();
        const previousUntil = new Date(Date.now() + graceSeconds * 1000).toISOString();
        if (!(await steps.rotateSecrets(id, secrets, previousUntil))) return 'unknownEndpoint';
        return { ...listed((await steps.endpoint(id))!, new Date().toISOString()), ...secrets };
      }),
  };
}
