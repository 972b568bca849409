import type { Context as KoaContext } from 'koa';
import type { operations } from '../../generated/admin.js';
import type { AdminStore } from '../store/store.js';
import { DEFAULT_SANDBOX_LIMITS, type AdminDeps, type SandboxLimits } from './handlers/admin/adminDeps.js';
import { createTenantKey, listTenantKeys, revokeKey } from './handlers/admin/keys.js';
import { changeStatementStatus } from './handlers/admin/statements.js';
import { deleteTenant, listTenants, resetTenant } from './handlers/admin/tenants.js';
import { setSandboxTtl } from './handlers/admin/setSandboxTtl.js';
import { getWebhookCall, listWebhookCalls, resendWebhookCall } from './handlers/admin/webhookCalls.js';
import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookEndpoints, rotateWebhookSecrets, updateWebhookEndpoint } from './handlers/admin/webhooks.js';
import type { Api } from './api.js';
import { adminTokenCheck } from './adminToken.js';
import { contractBackend, servedBy, type ServedOperations } from './contractBackend.js';
import type { OperationHandler, RequestState } from './handlerTypes.js';
import { createSandbox } from './handlers/admin/createSandbox.js';
import { problems } from './problems.js';
import type { PublicBaseConfig } from './publicBase.js';
import type { KeyRateLimiter } from './rateLimit.js';

type KoaCtx = KoaContext & { state: RequestState };

/** The path prefix of the administration API (docs/administration.md). */
const ADMIN_PREFIX = '/admin';

export interface AdminApiSetup {
  /** openapi/admin.yaml, loaded. */
  definition: Record<string, unknown>;
  /** The administration token (`serve --admin-token-file`, `COMPDATA_ADMIN_TOKEN`). */
  token: string;
  store: AdminStore;
  readBody: (ctx: KoaCtx) => Promise<unknown>;
  /** How a listing's `next` gets its base, as the public API's (`--public-url`, `--trust-proxy`). */
  publicBase: PublicBaseConfig;
  /** `--max-sandboxes`, `--max-sandbox-records`; absent: the defaults. */
  sandboxLimits?: SandboxLimits;
  /** `--rate-limit`: the admin token has a bucket of its own. */
  rateLimiter?: KeyRateLimiter;
  /** `--sandbox-ttl`: a sandbox's time to live when its request sets none. */
  sandboxTtlSeconds: number;
  /** `--webhook-allow-private`: endpoint URLs may name loopback, private and link-local hosts. */
  webhookAllowPrivate?: boolean;
  /** Called when a change of statuses wrote webhook calls: this server's delivery worker sends them without waiting for its poll. */
  callsWritten?: () => void;
}

/** The handler of each operation of openapi/admin.yaml: a missing or unknown one fails to compile. */
const HANDLERS: { [OperationId in keyof operations]: (deps: AdminDeps) => OperationHandler } = {
  createSandbox,
  listTenants,
  deleteTenant,
  resetTenant,
  setSandboxTtl,
  createTenantKey,
  listTenantKeys,
  revokeKey,
  changeStatementStatus,
  createWebhookEndpoint,
  listWebhookEndpoints,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateWebhookSecrets,
  listWebhookCalls,
  getWebhookCall,
  resendWebhookCall,
};

interface AdminServed extends ServedOperations {
  tokenAccepted: (authorization: string | undefined) => boolean;
}

/** What the rate limit counts an admin request against: never a tenant key's bucket. */
const ADMIN_BUCKET = '\u0000admin token';

/**
 * The administration API: openapi/admin.yaml routed and validated by a backend of its own, built
 * as the public API's is (contractBackend.ts), behind `Authorization: Bearer <admin token>`.
 */
export async function createAdminApi({
  definition,
  token,
  store,
  publicBase,
  readBody,
  rateLimiter,
  sandboxTtlSeconds,
  sandboxLimits = DEFAULT_SANDBOX_LIMITS,
  webhookAllowPrivate = false,
  callsWritten = () => undefined,
}: AdminApiSetup): Promise<Pick<Api, 'handleRequest'>> {
  const backend = await contractBackend(definition, Object.keys(HANDLERS), { AdminToken: checkAdminToken });
  const operations = Object.fromEntries(Object.entries(HANDLERS).map(([id, handler]) => [id, handler({ store, publicBase, sandboxTtlSeconds, sandboxLimits, webhookAllowPrivate, callsWritten })]));
  const served: AdminServed = {
    operations,
    readBody: (ctx) => (hasBody(ctx) ? readBody(ctx) : Promise.resolve(undefined)),
    ...(rateLimiter && { rateLimiter }),
    rateKey: () => ADMIN_BUCKET,
    unauthorized: problems.adminUnauthorized,
    tokenAccepted: adminTokenCheck(token),
  };
  return {
    async handleRequest(request, ctx) {
      ctx.state.served = served;
      return (await backend.handleRequest(request, ctx, request)) as unknown;
    },
  };
}

async function checkAdminToken(_api: unknown, ctx: KoaCtx): Promise<boolean> {
  return servedBy<AdminServed>(ctx).tokenAccepted(ctx.get('Authorization') || undefined);
}

/** A request that carries a body (an optional one may be left out). */
const hasBody = (ctx: KoaCtx): boolean => ctx.req.headers['transfer-encoding'] !== undefined || Number(ctx.req.headers['content-length'] ?? 0) > 0;

/** A path of the administration API: `/admin` and under it. */
export const isAdminPath = (path: string): boolean => path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`);
