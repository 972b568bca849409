import type { components } from '../../../../generated/admin.js';
import { formatMonth } from '../../../domain/months.js';
import { statementId } from '../../../domain/statements.js';
import type { CallFilter, LoggedAttempt, LoggedCall } from '../../../store/vocabulary/callLogShapes.js';
import type { OperationHandler } from '../../handlerTypes.js';
import { problems } from '../../problems.js';
import { publicBase } from '../../publicBase.js';
import { pathParam, type AdminDeps } from './adminDeps.js';
import { noSuchTenant } from './tenants.js';

type WebhookCall = components['schemas']['WebhookCall'];
type CallPage = components['schemas']['WebhookCallPage'];
type CallQuery = { limit?: string; before?: string; endpoint?: string; event?: CallFilter['event']; state?: CallFilter['state'] };

/** The page size of `GET …/webhook-calls` when the request says none (openapi/admin.yaml). */
const DEFAULT_LIMIT = 100;

const asCall = (call: LoggedCall): WebhookCall => ({
  id: call.id,
  seq: call.seq,
  endpoint_id: call.endpointId,
  event: call.event,
  statement: { id: statementId(call.userId, call.month), user_id: call.userId, month: formatMonth(call.month) },
  state: call.state,
  attempts: call.attempts,
  next_attempt_at: call.state === 'pending' ? call.nextAttemptAt : null,
  created_at: call.createdAt,
  resent_at: call.resentAt,
});

const asAttempt = (attempt: LoggedAttempt): components['schemas']['WebhookAttempt'] => ({
  attempt: attempt.attempt,
  at: attempt.at,
  duration_ms: attempt.durationMs,
  status: attempt.status,
  error: attempt.error,
  answer_head: attempt.answerHead,
  body: attempt.body,
});

const noSuchCall = (name: string, id: string) => problems.notFound(`The tenant ${name} has no webhook call with the id ${id}.`);

/**
 * `GET /admin/v1/tenants/{name}/webhook-calls`: the calls newest first, `limit` before `before`,
 * filtered. One more than the page is read, so that `next` is there exactly when a call follows.
 */
export const listWebhookCalls =
  ({ store, publicBase: baseConfig }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const name = pathParam(api, 'name');
    const { limit: limitText, before, endpoint, event, state } = api.request.query as CallQuery;
    const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
    const filter: CallFilter = { ...(endpoint !== undefined && { endpointId: endpoint }), ...(event !== undefined && { event }), ...(state !== undefined && { state }) };
    const found = await store.listWebhookCalls(name, filter, { ...(before !== undefined && { before: Number(before) }), limit: limit + 1 });
    if (found === 'unknownTenant') throw noSuchTenant(name);
    const data = found.slice(0, limit).map(asCall);
    const body: CallPage = { count: data.length, data };
    if (found.length > limit) {
      const next = new URLSearchParams({ limit: String(limit), before: String(data.at(-1)!.seq), ...(endpoint !== undefined && { endpoint }), ...(event !== undefined && { event }), ...(state !== undefined && { state }) });
      body.next = `${publicBase(ctx, baseConfig)}/admin/v1/tenants/${encodeURIComponent(name)}/webhook-calls?${next}`;
    }
    ctx.body = body;
  };

/** `GET /admin/v1/tenants/{name}/webhook-calls/{id}`: the call and its attempts, bodies sent included. */
export const getWebhookCall =
  ({ store }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const [name, id] = [pathParam(api, 'name'), pathParam(api, 'id')];
    const found = await store.webhookCall(name, id);
    if (found === 'unknownTenant') throw noSuchTenant(name);
    if (found === 'unknownCall') throw noSuchCall(name, id);
    ctx.body = { call: asCall(found.call), attempts: found.attempts.map(asAttempt) } satisfies components['schemas']['WebhookCallWithAttempts'];
  };

/** `POST /admin/v1/tenants/{name}/webhook-calls/{id}/resend`: a delivered or failed call pending again, due now. */
export const resendWebhookCall =
  ({ store }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const [name, id] = [pathParam(api, 'name'), pathParam(api, 'id')];
    const resent = await store.resendWebhookCall(name, id);
    if (resent === 'unknownTenant') throw noSuchTenant(name);
    if (resent === 'unknownCall') throw noSuchCall(name, id);
    if (resent === 'pending') throw problems.conflict(`The webhook call ${id} is pending already: the delivery worker sends it.`);
    ctx.status = 202;
    ctx.body = asCall(resent);
  };
