import { Webhook } from 'standardwebhooks';
import type { CallEndpoint } from '../store/vocabulary/deliveryShapes.js';

/**
 * The headers of an attempt (the contract's `webhooks`): the Standard Webhooks ones, signed with
 * the endpoint's signing secret and, while the one a rotation replaced is valid, with that one
 * too (both signatures, space separated); `X-Webhook-Secret` unless the endpoint turned it off.
 */
export function webhookHeaders(callId: string, endpoint: CallEndpoint, body: string, at: Date): Record<string, string> {
  const secrets = [endpoint.signingSecret, ...(endpoint.previousSigningSecret === null ? [] : [endpoint.previousSigningSecret])];
  return {
    'content-type': 'application/json',
    'webhook-id': callId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(callId, at, body)).join(' '),
    ...(endpoint.secretHeader && { 'x-webhook-secret': endpoint.secret }),
  };
}
