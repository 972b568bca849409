import type { Context as KoaContext } from 'koa';
import type { Context as ApiContext } from 'openapi-backend';
import type { operations } from '../../generated/api.js';
import type { Principal } from '../store/vocabulary/tenancy.js';
import type { RequestStore } from '../store/store.js';
import type { DocsAssets } from './docsAssets.js';
import type { FaultSpec } from './faultSpec.js';
import type { LoadedDocument } from './document.js';
import type { MeteredState, Scrape } from './metrics.js';
import type { PublicBaseConfig } from './publicBase.js';

/** What handlers are given once, at start-up. */
export interface HandlerDeps {
  store: RequestStore;
  publicBase: PublicBaseConfig;
  /** The faults injected on demand (`--faults`), which `GET /healthz` tells; absent: none. */
  faults?: FaultSpec;
  /** The contract, served by `GET /openapi.json`. */
  document: Pick<LoadedDocument, 'servedJson'>;
  /** The API reference page and its files (`GET /docs`). */
  docs: DocsAssets;
  /** `--metrics`: what `GET /metrics` answers; absent: a 404, as for any unknown path. */
  metrics?: { scrape(): Promise<Scrape> };
  /** A push was stored: its import may be due now (the server's import runner looks at once). */
  importsPushed?: () => void;
}

/** Koa state set before a handler runs: the key's principal on operations that need a key. */
export interface RequestState extends MeteredState {
  /** The server the request reached, behind the backend its process shares (api.ts). */
  served?: unknown;
  principal: Principal;
  /** The parsed JSON body, on operations that take one (validated before the handler runs). */
  body?: unknown;
  /** A push's body as read by the streaming reader (pushBody.ts). */
  pushBody?: unknown;
  /** The rate limit's bucket a token was taken from for this request (given back should its key turn out gone). */
  rateBucket?: string;
}

export type OperationHandler = (api: ApiContext, ctx: KoaContext & { state: RequestState }) => void | Promise<void>;

/** The operations of the contract's `webhooks`: calls the service makes, never serves. */
type WebhookCalls = 'statementSentToPayroll';

/** One handler per operationId of the contract's paths: a missing or unknown one fails to compile. */
export type OperationHandlers = { [OperationId in Exclude<keyof operations, WebhookCalls>]: OperationHandler };
