import addFormats from 'ajv-formats';
import type { Context as KoaContext } from 'koa';
import { OpenAPIBackend, type Context as ApiContext, type Document } from 'openapi-backend';
import type { Principal } from '../store/store.js';
import { ContractRouter } from './contractRouter.js';
import { fairQueue } from './fairQueue.js';
import type { HandlerDeps, OperationHandler, OperationHandlers, RequestState } from './handlerTypes.js';
import { getDocsAsset } from './handlers/getDocsAsset.js';
import { getDocsPage } from './handlers/getDocsPage.js';
import { getGroupAttributions } from './handlers/getGroupAttributions.js';
import { getHealth } from './handlers/getHealth.js';
import { getManagerAttributions } from './handlers/getManagerAttributions.js';
import { getMetrics } from './handlers/getMetrics.js';
import { getOpenApiDocument } from './handlers/getOpenApiDocument.js';
import { getReportingFields } from './handlers/getReportingFields.js';
import { getReportingRecords } from './handlers/getReportingRecords.js';
import { getTableFields } from './handlers/getTableFields.js';
import { getTableRecords } from './handlers/getTableRecords.js';
import { getTables } from './handlers/getTables.js';
import { upsertGroupsBulk } from './handlers/upsertGroupsBulk.js';
import { problems } from './problems.js';
import { admitByRate, type KeyRateLimiter } from './rateLimit.js';
import { problemsFromAjv, type JsonSchema } from './validationErrors.js';

type KoaCtx = KoaContext & { state: RequestState };

export interface ApiSetup {
  definition: Record<string, unknown>;
  deps: HandlerDeps;
  authenticate: (key: string | undefined) => Promise<Principal | undefined>;
  /** Reads the request body once the operation is known and the key accepted (413, 415, 400). */
  readBody: (ctx: KoaCtx) => Promise<unknown>;
  /** `--rate-limit`: a key past its rate is answered 429 before its body is read. */
  rateLimiter?: KeyRateLimiter;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/**
 * openapi-backend checks the document against the OpenAPI 3.0 meta-schema only, which refuses
 * valid 3.1 documents (`info.summary`, schema `examples`, `type: [number, 'null']`). Our
 * document is linted as 3.1 by `make lint` (Redocly) instead; everything else stays strict.
 */
class OpenApi31Backend extends OpenAPIBackend {
  override validateDefinition() {
    return this.document;
  }

  /** The stock router, and the validator's reference to it, replaced by {@link ContractRouter}. */
  override async init() {
    await super.init();
    this.router = new ContractRouter({ definition: this.definition, apiRoot: this.apiRoot, ignoreTrailingSlashes: this.ignoreTrailingSlashes });
    this.validator.router = this.router;
    return this;
  }
}

/**
 * openapi-backend routes, checks the key, and validates the request against the contract before
 * an operation handler runs; every refusal on the way is a problem (docs/rules.md#errors).
 */
export async function createApi({ definition, deps, authenticate, readBody, rateLimiter }: ApiSetup): Promise<OpenAPIBackend> {
  const operations = inTurn({
    getReportingRecords: getReportingRecords(deps),
    upsertGroupsBulk: upsertGroupsBulk(deps),
    getGroupAttributions: getGroupAttributions(deps),
    getManagerAttributions: getManagerAttributions(deps),
    getTableRecords: getTableRecords(deps),
    getTables: getTables(deps),
    getTableFields: getTableFields(deps),
    getReportingFields: getReportingFields(deps),
    getOpenApiDocument: getOpenApiDocument(deps),
    getHealth: getHealth(deps),
    getDocsPage: getDocsPage(deps),
    getDocsAsset: getDocsAsset(deps),
    getMetrics: getMetrics(deps),
  });
  const api = new OpenApi31Backend({
    definition: definition as unknown as Document,
    strict: true,
    validate: true,
    // A path is served only as the contract writes it: `/v1/reporting/` is another (unknown) path.
    ignoreTrailingSlashes: false,
    customizeAjv: (ajv: Parameters<typeof addFormats.default>[0]) => {
      addFormats.default(ajv);
      return ajv;
    },
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
        // Every answer to a request let through carries the key's state, whatever follows (a 200, a 400, a 422).
        if (rateLimiter && ctx.state.principal) ctx.set(await admitByRate(rateLimiter, ctx.get('X-API-Key')));
        if (!apiContext.operation.requestBody) return;
        // openapi-backend validates the request object it was given: the body goes there.
        request.body = await readBody(ctx);
        ctx.state.body = request.body;
      },
      validationFail: (apiContext: ApiContext, ctx: KoaCtx) => {
        const bodySchema = jsonBodySchema(apiContext.operation.requestBody);
        throw problems.badRequest(problemsFromAjv(apiContext.validation.errors ?? [], bodySchema, ctx.state.body));
      },
    },
    securityHandlers: {
      ApiKey: async (_api: ApiContext, ctx: KoaCtx) => {
        try {
          const principal = await authenticate(ctx.get('X-API-Key') || undefined);
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
  return api;
}

/** Every handler run through one {@link fairQueue}: first come, first served, without starving I/O. */
function inTurn(handlers: OperationHandlers): OperationHandlers {
  const run = fairQueue();
  const queued = Object.entries(handlers).map(([operationId, handler]) => [operationId, ((api, ctx) => run(() => handler(api, ctx))) as OperationHandler]);
  return Object.fromEntries(queued) as OperationHandlers;
}

/** The JSON schema of an operation's request body (dereferenced by openapi-backend), if any. */
function jsonBodySchema(requestBody: unknown): JsonSchema | undefined {
  const content = (requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined)?.content;
  return content?.['application/json']?.schema;
}
