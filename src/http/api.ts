import type { Context as KoaContext } from 'koa';
import type { OpenAPIBackend, Context as ApiContext } from 'openapi-backend';
import { KeyGone } from '../store/vocabulary/storeErrors.js';
import type { Principal } from '../store/vocabulary/tenancy.js';
import { problems, type HttpProblem } from './problems.js';
import { contractBackend, servedBy, type ServedOperations } from './contractBackend.js';
import type { HandlerDeps, OperationHandler, OperationHandlers, RequestState } from './handlerTypes.js';
import { getDataStructureFields } from './handlers/getDataStructureFields.js';
import { getDataStructures } from './handlers/getDataStructures.js';
import { archiveUsersBulk } from './handlers/archiveUsersBulk.js';
import { getDocsAsset } from './handlers/getDocsAsset.js';
import { getDocsPage } from './handlers/getDocsPage.js';
import { getGroupAttributions } from './handlers/getGroupAttributions.js';
import { getHealth } from './handlers/getHealth.js';
import { getImport } from './handlers/getImport.js';
import { getManagerAttributions } from './handlers/getManagerAttributions.js';
import { getMetrics } from './handlers/getMetrics.js';
import { getOpenApiDocument } from './handlers/getOpenApiDocument.js';
import { getReportingFields } from './handlers/getReportingFields.js';
import { getReportingRecords } from './handlers/getReportingRecords.js';
import { getTableFields } from './handlers/getTableFields.js';
import { getTableRecords } from './handlers/getTableRecords.js';
import { getTables } from './handlers/getTables.js';
import { getV2Records } from './handlers/getV2Records.js';
import { getV2Statements } from './handlers/getV2Statements.js';
import { pushTableRecords } from './handlers/pushTableRecords.js';
import { upsertGroupsBulk } from './handlers/upsertGroupsBulk.js';
import { upsertManagersBulk } from './handlers/upsertManagersBulk.js';
import { upsertUsersBulk } from './handlers/upsertUsersBulk.js';
import type { KeyRateLimiter } from './rateLimit.js';
import { isReadMethod } from './readMethods.js';

type KoaCtx = KoaContext & { state: RequestState };

export interface ApiSetup {
  definition: Record<string, unknown>;
  deps: HandlerDeps;
  /** The key's principal; `read`: a request that only reads, with the consistency token it sent (see `Store.authenticate`). */
  authenticate: (key: string | undefined, read?: { consistency?: string }) => Promise<Principal | undefined>;
  /** Reads the request body once the operation is known and the key accepted (413, 415, 400). */
  readBody: (ctx: KoaCtx) => Promise<unknown>;
  /**
   * Reads the body of a push of table records as a stream (pushBody.ts), with its own limit:
   * the lines, kept as text, go to the handler; the contract's validator is given the envelope
   * `{"data": []}`, every constraint of which the streaming reader has checked.
   */
  readPushBody: (ctx: KoaCtx) => Promise<unknown>;
  /** `--rate-limit`: a key past its rate is answered 429 before its body is read. */
  rateLimiter?: KeyRateLimiter;
}

/** One server's API: the contract's routing and validation, and this server's handlers behind it. */
export interface Api {
  /** openapi-backend over the contract, shared by every server of this process over the same document. */
  readonly backend: OpenAPIBackend;
  /** Routes, checks and validates the request, then runs this server's handler of its operation. */
  handleRequest(request: ApiRequest, ctx: KoaCtx): Promise<unknown>;
}

type ApiRequest = Parameters<OpenAPIBackend['handleRequest']>[0];

/** What a server puts behind the shared backend (on `ctx.state.served`): its handlers, its key check, its limits. */
interface Served extends ServedOperations, Pick<ApiSetup, 'authenticate' | 'rateLimiter'> {
  operations: OperationHandlers;
  /** `RequestStore.confirm`: whether a provisional principal's key still grants it. */
  confirm: (principal: Principal) => Promise<boolean>;
}

/** The handler of each operation, given a server's dependencies: a missing or unknown one fails to compile. */
const HANDLERS: { [OperationId in keyof OperationHandlers]: (deps: HandlerDeps) => OperationHandler } = {
  getReportingRecords,
  upsertGroupsBulk,
  upsertManagersBulk,
  upsertUsersBulk,
  archiveUsersBulk,
  pushTableRecords,
  getImport,
  getGroupAttributions,
  getManagerAttributions,
  getTableRecords,
  getTables,
  getTableFields,
  getDataStructures,
  getDataStructureFields,
  getV2Statements,
  getV2Records,
  getReportingFields,
  getOpenApiDocument,
  getHealth,
  getDocsPage,
  getDocsAsset,
  getMetrics,
};

/** A request that only reads: a replica may serve it. */
const isRead = (ctx: KoaCtx): boolean => isReadMethod(ctx.method);

/**
 * openapi-backend routes, checks the key, and validates the request against the contract
 * before an operation handler runs; every refusal on the way is a problem
 * (docs/rules.md#errors). The backend depends on the document alone, so a process builds it
 * once per document (its validators compiled then) and every server it starts shares it.
 */
export async function createApi({ definition, deps, ...setup }: ApiSetup): Promise<Api> {
  const backend = await contractBackend(definition, Object.keys(HANDLERS), { ApiKey: checkApiKey });
  const operations = Object.fromEntries(Object.entries(HANDLERS).map(([id, handler]) => [id, handler(deps)])) as OperationHandlers;
  // The rate limit counts a request against the key that was accepted.
  const rateKey = (ctx: KoaCtx) => (ctx.state.principal ? ctx.get('X-API-Key') : undefined);
  const served: Served = { ...setup, operations, rateKey, confirm: (principal) => deps.store.confirm(principal) };
  return {
    backend,
    async handleRequest(request, ctx) {
      ctx.state.served = served;
      const result: unknown = await backend.handleRequest(request, ctx, request).catch(async (error: unknown) => {
        throw (await keyGone(ctx, error)) ? refusedKey(ctx) : error;
      });
      // An answer that no read of the key's statement confirmed waits for its key check.
      if (await keyGone(ctx)) throw refusedKey(ctx);
      // A read's answer says which database server served it, when there is a choice (a read replica).
      const servedBy = ctx.state.principal && isRead(ctx) ? deps.store.servedBy(ctx.state.principal) : undefined;
      if (servedBy !== undefined) ctx.set('Compdata-Served-By', servedBy);
      return result;
    },
  };
}

/**
 * Whether the request's provisional principal (see `RequestStore.confirm`) turned out to hold a
 * key gone: its read said so (`error`), or its key check, made now before any other answer, does.
 * So a key gone is answered `401` before a `429`, a `400` or a `404`, as a key checked first is.
 */
async function keyGone(ctx: KoaCtx, error?: unknown): Promise<boolean> {
  if (error instanceof KeyGone) return true;
  const { principal } = ctx.state;
  return principal !== undefined && !(await servedBy<Served>(ctx).confirm(principal));
}

/** The `401` of a key found gone after its request was let through: the rate limit's token given back, its fields taken off. */
function refusedKey(ctx: KoaCtx): HttpProblem {
  const { rateLimiter } = servedBy<Served>(ctx);
  if (rateLimiter && ctx.state.rateBucket !== undefined) rateLimiter.giveBack(ctx.state.rateBucket);
  ctx.remove('RateLimit');
  ctx.remove('RateLimit-Policy');
  return (servedBy<Served>(ctx).unauthorized ?? problems.unauthorized)();
}

/** `X-API-Key`: the store says whose key it is (the principal put on the request), if anyone's. */
async function checkApiKey(_api: ApiContext, ctx: KoaCtx): Promise<boolean> {
  try {
    const read = isRead(ctx) ? { consistency: ctx.get('Compdata-Consistency') || undefined } : undefined;
    const principal = await servedBy<Served>(ctx).authenticate(ctx.get('X-API-Key') || undefined, read);
    if (principal) ctx.state.principal = principal;
    return principal !== undefined;
  } catch (error) {
    // openapi-backend takes a throwing security handler for a refusal: kept for unauthorizedHandler.
    ctx.state.authenticationFailure = error;
    return false;
  }
}
