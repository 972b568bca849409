import type { Context as KoaContext } from 'koa';
import { OpenAPIBackend, type Context as ApiContext, type Document } from 'openapi-backend';
import { contractAjvForOpenApiBackend, requestCompiler } from './contractAjv.js';
import { ContractRouter } from './contractRouter.js';
import type { OperationHandler, RequestState } from './handlerTypes.js';
import { HttpProblem, problems } from './problems.js';
import { admitByRate, bucketIdOf, type KeyRateLimiter } from './rateLimit.js';
import { requestProblems, validationProblem } from './validationErrors.js';
import { isReadMethod } from './readMethods.js';

type KoaCtx = KoaContext & { state: RequestState };
type ApiRequest = Parameters<OpenAPIBackend['handleRequest']>[0];

/**
 * What a server puts behind a backend its process shares (on `ctx.state.served`): its handlers,
 * its body readers and its rate limit. The backend depends on the document alone.
 */
export interface ServedOperations {
  operations: Record<string, OperationHandler>;
  /** Reads the request body once the operation is known and the caller accepted (413, 415, 400). */
  readBody: (ctx: KoaCtx) => Promise<unknown>;
  /** Reads the body of a push of table records as a stream (public API only: pushBody.ts). */
  readPushBody?: (ctx: KoaCtx) => Promise<unknown>;
  /** `--rate-limit`: a caller past its rate is answered 429 before its body is read. */
  rateLimiter?: KeyRateLimiter;
  /** What the rate limit counts an accepted request against (hashed into its bucket); none: nothing. */
  rateKey: (ctx: KoaCtx) => string | undefined;
  /** The 401 of a caller not accepted (default: the public API's, which names X-API-Key). */
  unauthorized?: () => HttpProblem;
}

/** How a document's callers are recognised: its security schemes' handlers. */
export type SecurityHandlers = Record<string, (api: ApiContext, ctx: KoaCtx) => Promise<boolean>>;

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/** A request that only reads: a replica may serve it. */
const isRead = (ctx: KoaCtx): boolean => isReadMethod(ctx.method);

export const servedBy = <T extends ServedOperations>(ctx: KoaCtx): T => ctx.state.served as T;

const backends = new WeakMap<object, Promise<OpenAPIBackend>>();

/**
 * openapi-backend over `definition`, built on its first use in this process: it routes, checks
 * the caller with `securityHandlers`, and validates the request against the document before the
 * handler of `operationIds` that the server the request reached put behind it runs; every
 * refusal on the way is a problem (docs/rules.md#errors). The public API and the administration
 * API each have one (api.ts, adminApi.ts).
 */
export function contractBackend(definition: Record<string, unknown>, operationIds: readonly string[], securityHandlers: SecurityHandlers): Promise<OpenAPIBackend> {
  let backend = backends.get(definition);
  if (!backend) {
    backend = buildBackend(definition, operationIds, securityHandlers);
    backends.set(definition, backend);
    backend.catch(() => backends.delete(definition));
  }
  return backend;
}

async function buildBackend(definition: Record<string, unknown>, operationIds: readonly string[], securityHandlers: SecurityHandlers): Promise<OpenAPIBackend> {
  // Each operation's handler is the one of the server the request reached.
  const operations = Object.fromEntries(operationIds.map((id) => [id, (api: ApiContext, ctx: KoaCtx) => servedBy(ctx).operations[id]!(api, ctx)]));
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
    securityHandlers,
  });
  // The handlers are registered once the router below is in place: registering one asks the
  // router for its operation, which the stock router finds by listing every operation again.
  const handlers = {
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
      throw (servedBy(ctx).unauthorized ?? problems.unauthorized)();
    },
    postSecurityHandler: async (apiContext: ApiContext, ctx: KoaCtx, request: { body?: unknown }) => {
      if (!apiContext.security.authorized) return;
      const served = servedBy(ctx);
      const rateKey = served.rateKey(ctx);
      // Every answer to a request let through carries the caller's state, whatever follows (a 200, a 400, a 422).
      if (served.rateLimiter && rateKey !== undefined) {
        ctx.set(await admitByRate(served.rateLimiter, rateKey));
        ctx.state.rateBucket = bucketIdOf(rateKey);
      }
      // A key that may only read writes nothing: refused before its body is read.
      if (!isRead(ctx) && ctx.state.principal?.scope === 'read') throw problems.forbidden();
      if (!apiContext.operation.requestBody) return;
      if (apiContext.operation.operationId === 'pushTableRecords' && served.readPushBody) {
        ctx.state.pushBody = await served.readPushBody(ctx);
        request.body = { data: [] };
        return;
      }
      // openapi-backend validates the request object it was given: the body goes there.
      try {
        request.body = await served.readBody(ctx);
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
  };
  await api.init();
  // The stock router, and the validator's reference to it, replaced by one that does not redo
  // its work on every request (openapi-backend takes no router of ours as an option).
  api.router = new ContractRouter({ definition: api.definition, apiRoot: api.apiRoot, ignoreTrailingSlashes: api.ignoreTrailingSlashes });
  api.validator.router = api.router;
  api.register(handlers);
  // openapi-backend builds a draft-07 Ajv for each validator before it asks customizeAjv for
  // ours: asked directly, as customizeAjv would be, without that Ajv; it only compiles with it,
  // and what compiles takes the validators the build compiled when it has them.
  const { validator } = api;
  validator.getAjv = (context, options = {}) => requestCompiler({ ...validator.ajvOpts, ...options }, context);
  // A schema Ajv cannot compile fails the start, not the first request of its operation.
  api.validator.preCompileRequestValidators();
  return api;
}
