import type { Context as KoaContext } from 'koa';
import { OpenAPIBackend, type Context as ApiContext, type Document } from 'openapi-backend';
import type { Principal } from '../store/vocabulary/tenancy.js';
import { contractAjvForOpenApiBackend, requestAjv } from './contractAjv.js';
import { ContractRouter } from './contractRouter.js';
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
import { HttpProblem, problems } from './problems.js';
import { admitByRate, type KeyRateLimiter } from './rateLimit.js';
import { requestProblems, validationProblem } from './validationErrors.js';
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
interface Served extends Omit<ApiSetup, 'definition' | 'deps'> {
  operations: OperationHandlers;
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

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/** A request that only reads: a replica may serve it. */
const isRead = (ctx: KoaCtx): boolean => isReadMethod(ctx.method);

/**
 * openapi-backend routes, checks the key, and validates the request against the contract
 * before an operation handler runs; every refusal on the way is a problem
 * (docs/rules.md#errors). The backend depends on the document alone, so a process builds it
 * once per document (its validators compiled then) and every server it starts shares it.
 */
export async function createApi({ definition, deps, ...setup }: ApiSetup): Promise<Api> {
  const backend = await contractBackend(definition);
  const operations = Object.fromEntries(Object.entries(HANDLERS).map(([id, handler]) => [id, handler(deps)])) as OperationHandlers;
  const served: Served = { ...setup, operations };
  return {
    backend,
    async handleRequest(request, ctx) {
      ctx.state.served = served;
      const result: unknown = await backend.handleRequest(request, ctx, request);
      // A read's answer says which database server served it, when there is a choice (a read replica).
      const servedBy = ctx.state.principal && isRead(ctx) ? deps.store.servedBy(ctx.state.principal) : undefined;
      if (servedBy !== undefined) ctx.set('Compdata-Served-By', servedBy);
      return result;
    },
  };
}

const backends = new WeakMap<object, Promise<OpenAPIBackend>>();

/** The backend of `definition`, built on its first use in this process. */
function contractBackend(definition: Record<string, unknown>): Promise<OpenAPIBackend> {
  let backend = backends.get(definition);
  if (!backend) {
    backend = buildBackend(definition);
    backends.set(definition, backend);
    backend.catch(() => backends.delete(definition));
  }
  return backend;
}

const servedBy = (ctx: KoaCtx) => ctx.state.served as Served;

async function buildBackend(definition: Record<string, unknown>): Promise<OpenAPIBackend> {
  // Each operation's handler is the one of the server the request reached.
  const operations = Object.fromEntries(
    Object.keys(HANDLERS).map((id) => [id, (api: ApiContext, ctx: KoaCtx) => servedBy(ctx).operations[id as keyof OperationHandlers](api, ctx)]),
  );
  const api = new OpenAPIBackend({
    definition: definition as unknown as Document,
    strict: true,
    // openapi-backend checks a document against the OpenAPI 3.0 meta-schema only, which refuses
    // valid 3.1 (`info.summary`, `examples`, `type: [number, 'null']`); `quick` skips that check
    // (`make lint` checks the document as 3.1, with Redocly). It also dereferences the document
    // synchronously and compiles no validator before it is used: the request validators are
    // compiled below, at start-up; response validators, which the server never runs, not at all.
    quick: true,
    validate: true,
    // `coerceTypes` stays off, so that `api.request.query` keeps the texts the contract accepted
    // (validatedQuery.ts); Ajv checks a coerced copy of its own. A coerced `offset` would be a
    // number rounded past 2^53, where domain/paging.ts reads every offset up to 2^63 - 1 exactly.
    // A path is served only as the contract writes it: `/v1/reporting/` is another (unknown) path.
    ignoreTrailingSlashes: false,
    // Requests are validated as JSON Schema 2020-12, the dialect of OpenAPI 3.1.
    customizeAjv: contractAjvForOpenApiBackend,
    handlers: {
      ...operations,
      notFound: (_api: ApiContext, ctx: KoaCtx) => {
        throw problems.notFound(`No resource at ${ctx.path}.`);
      },
      methodNotAllowed: (_api: ApiContext, ctx: KoaCtx) => {
        const allow = METHODS.filter((method) => api.router.matchOperation({ method, path: ctx.path, headers: {} }));
        if (allow.includes('get')) allow.push('head' as never);
        throw problems.methodNotAllowed(ctx.method, ctx.path, allow.map((m) => m.toUpperCase()));
      },
      // The operation a request is for, for the metrics (called before the key is checked, and
      // also, without an operation, before notFound and methodNotAllowed).
      postRoutingHandler: (apiContext: ApiContext, ctx: KoaCtx) => {
        const operation = apiContext.operation as ApiContext['operation'] | undefined;
        if (operation) ctx.state.operationId = operation.operationId;
      },
      unauthorizedHandler: (_api: ApiContext, ctx: KoaCtx) => {
        // The store could not say (the database is away): that is its answer, not a 401.
        if (ctx.state.authenticationFailure !== undefined) throw ctx.state.authenticationFailure;
        throw problems.unauthorized();
      },
      postSecurityHandler: async (apiContext: ApiContext, ctx: KoaCtx, request: { body?: unknown }) => {
        if (!apiContext.security.authorized) return;
        const { rateLimiter, readBody } = servedBy(ctx);
        // Every answer to a request let through carries the key's state, whatever follows (a 200, a 400, a 422).
        if (rateLimiter && ctx.state.principal) ctx.set(await admitByRate(rateLimiter, ctx.get('X-API-Key')));
        // A key that may only read writes nothing: refused before its body is read.
        if (!isRead(ctx) && ctx.state.principal?.scope === 'read') throw problems.forbidden();
        if (!apiContext.operation.requestBody) return;
        if (apiContext.operation.operationId === 'pushTableRecords') {
          ctx.state.pushBody = await servedBy(ctx).readPushBody(ctx);
          request.body = { data: [] };
          return;
        }
        // openapi-backend validates the request object it was given: the body goes there.
        try {
          request.body = await readBody(ctx);
        } catch (error) {
          // A body that is no JSON: the parameters are validated all the same, so that the 400 names every fault.
          if (!(error instanceof HttpProblem && error.status === 400 && error.errors)) throw error;
          const { errors } = api.validator.validateRequest({ ...(request as ApiRequest), body: undefined }, apiContext.operation);
          const faults = requestProblems(errors ?? [], apiContext.operation, { problems: error.errors });
          throw validationProblem(faults, faults.errors.length === error.errors.length ? error.detail : undefined);
        }
        ctx.state.body = request.body;
      },
      validationFail: (apiContext: ApiContext, ctx: KoaCtx) => {
        const body = ctx.state.body === undefined ? undefined : { value: ctx.state.body };
        throw validationProblem(requestProblems(apiContext.validation.errors ?? [], apiContext.operation, body));
      },
    },
    securityHandlers: {
      ApiKey: async (_api: ApiContext, ctx: KoaCtx) => {
        try {
          const read = isRead(ctx) ? { consistency: ctx.get('Compdata-Consistency') || undefined } : undefined;
          const principal = await servedBy(ctx).authenticate(ctx.get('X-API-Key') || undefined, read);
          if (principal) ctx.state.principal = principal;
          return principal !== undefined;
        } catch (error) {
          // openapi-backend takes a throwing security handler for a refusal: kept for unauthorizedHandler.
          ctx.state.authenticationFailure = error;
          return false;
        }
      },
    },
  });
  await api.init();
  // The stock router, and the validator's reference to it, replaced by one that does not redo
  // its work on every request (openapi-backend takes no router of ours as an option).
  api.router = new ContractRouter({ definition: api.definition, apiRoot: api.apiRoot, ignoreTrailingSlashes: api.ignoreTrailingSlashes });
  api.validator.router = api.router;
  // openapi-backend builds a draft-07 Ajv for each validator before it asks customizeAjv for
  // ours: asked directly, as customizeAjv would be, without that Ajv.
  const { validator } = api;
  validator.getAjv = (context, options = {}) => requestAjv({ ...validator.ajvOpts, ...options }, context);
  // A schema Ajv cannot compile fails the start, not the first request of its operation.
  api.validator.preCompileRequestValidators();
  return api;
}
