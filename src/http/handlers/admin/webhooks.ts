import type { components } from '../../../../generated/admin.js';
import { NO_FAULTS, type WebhookFaults } from '../../../domain/webhookFaults.js';
import { webhookUrlProblem } from '../../../domain/webhookUrl.js';
import type { EndpointSettings, WebhookEndpoint, WebhookSecrets } from '../../../store/vocabulary/webhookShapes.js';
import type { OperationHandler } from '../../handlerTypes.js';
import { problems } from '../../problems.js';
import { pathParam, type AdminDeps } from './adminDeps.js';
import { noSuchTenant } from './tenants.js';

type EndpointRequest = components['schemas']['WebhookEndpointRequest'];
type EndpointChange = components['schemas']['WebhookEndpointChange'];
type RotationRequest = components['schemas']['RotationRequest'];
type Endpoint = components['schemas']['WebhookEndpoint'];
type EndpointWithSecrets = components['schemas']['WebhookEndpointWithSecrets'];
type Faults = components['schemas']['WebhookFaults'];

/** How long the secrets a rotation replaces stay valid when the request says nothing (openapi/admin.yaml). */
const DEFAULT_GRACE_SECONDS = 86_400;

const asEndpoint = (endpoint: WebhookEndpoint): Endpoint => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events,
  enabled: endpoint.enabled,
  secret_header: endpoint.secretHeader,
  created_at: endpoint.createdAt,
  previous_secrets_valid_until: endpoint.previousUntil,
  faults: { duplicate: endpoint.faults.duplicate, reorder: endpoint.faults.reorder, delay_ms: endpoint.faults.delayMs },
});

/** The faults a request asks for (docs/administration.md#faults-for-receivers): those left out are off. */
const faultsOf = (faults: Faults): WebhookFaults => ({ duplicate: faults.duplicate ?? 0, reorder: faults.reorder ?? 0, delayMs: faults.delay_ms ?? 0 });

const withSecrets = (endpoint: WebhookEndpoint & WebhookSecrets): EndpointWithSecrets => ({
  ...asEndpoint(endpoint),
  secret: endpoint.secret,
  signing_secret: endpoint.signingSecret,
});

/** What is missing, as a 404: the tenant, or its endpoint. */
function missing(name: string, id: string, what: 'unknownTenant' | 'unknownEndpoint') {
  return what === 'unknownTenant' ? noSuchTenant(name) : problems.notFound(`The tenant ${name} has no webhook endpoint with the id ${id}.`);
}

/**
 * A URL no endpoint may have, as a 422 (docs/administration.md#private-addresses): not http(s),
 * with a user name or password, or (unless `--webhook-allow-private`) a loopback, private or
 * link-local host.
 */
function refuseUrl(url: string | undefined, allowPrivate: boolean): void {
  const problem = url === undefined ? undefined : webhookUrlProblem(url, allowPrivate);
  if (problem !== undefined) throw problems.unprocessable([{ pointer: '/body/url', message: `The URL ${problem}.` }], 'The webhook endpoint\'s URL is refused; nothing was changed.');
}

/** `POST /admin/v1/tenants/{name}/webhooks`: a new endpoint, its secrets in the answer only. */
export const createWebhookEndpoint =
  ({ store, webhookAllowPrivate }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const name = pathParam(api, 'name');
    const request = ctx.state.body as EndpointRequest;
    refuseUrl(request.url, webhookAllowPrivate);
    const settings: EndpointSettings = {
      url: request.url,
      events: request.events,
      enabled: request.enabled ?? true,
      secretHeader: request.secret_header ?? true,
      faults: request.faults ? faultsOf(request.faults) : NO_FAULTS,
    };
    const made = await store.createWebhookEndpoint(name, settings);
    if (made === 'unknownTenant') throw noSuchTenant(name);
    ctx.status = 201;
    ctx.body = withSecrets(made);
  };

/** `GET /admin/v1/tenants/{name}/webhooks`: the endpoints, by id, without secrets. */
export const listWebhookEndpoints =
  ({ store }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const name = pathParam(api, 'name');
    const endpoints = await store.listWebhookEndpoints(name);
    if (endpoints === 'unknownTenant') throw noSuchTenant(name);
    ctx.body = { data: endpoints.map(asEndpoint) } satisfies components['schemas']['WebhookEndpointList'];
  };

/** `PATCH /admin/v1/tenants/{name}/webhooks/{id}`: the settings given change. */
export const updateWebhookEndpoint =
  ({ store, webhookAllowPrivate }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const [name, id] = [pathParam(api, 'name'), pathParam(api, 'id')];
    const { url, events, enabled, secret_header: secretHeader, faults } = ctx.state.body as EndpointChange;
    refuseUrl(url, webhookAllowPrivate);
    const updated = await store.updateWebhookEndpoint(name, id, { url, events, enabled, secretHeader, faults: faults && faultsOf(faults) });
    if (typeof updated === 'string') throw missing(name, id, updated);
    ctx.body = asEndpoint(updated);
  };

/** `DELETE /admin/v1/tenants/{name}/webhooks/{id}`: the endpoint and its calls. */
export const deleteWebhookEndpoint =
  ({ store }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const [name, id] = [pathParam(api, 'name'), pathParam(api, 'id')];
    const deleted = await store.deleteWebhookEndpoint(name, id);
    if (deleted !== 'deleted') throw missing(name, id, deleted);
    ctx.status = 204;
  };

/** `POST /admin/v1/tenants/{name}/webhooks/{id}/rotate`: new secrets, the old ones valid for the grace. */
export const rotateWebhookSecrets =
  ({ store }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const [name, id] = [pathParam(api, 'name'), pathParam(api, 'id')];
    const grace = ((ctx.state.body ?? {}) as RotationRequest).grace_seconds ?? DEFAULT_GRACE_SECONDS;
    const rotated = await store.rotateWebhookSecrets(name, id, grace);
    if (typeof rotated === 'string') throw missing(name, id, rotated);
    ctx.body = withSecrets(rotated);
  };
