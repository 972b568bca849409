import { administration } from './admin/administration.js';
import { statementChanges } from './admin/statementChanges.js';
import { webhookCallLog } from './admin/webhookCallLog.js';
import { webhookEndpoints } from './admin/webhookEndpoints.js';
import { webhookOutbox } from './delivery/webhookOutbox.js';
import type { Engine } from './engine/engine.js';
import { translatingErrors } from './errorTranslation.js';
import { importRuns } from './imports/importRuns.js';
import { fairQueue } from './requests/fairQueue.js';
import { keyCheck } from './requests/keyCheck.js';
import { DEFAULT_READ_ROUTING, readRouter, type ReadRoutingOptions } from './requests/readRouting.js';
import { readServing } from './requests/readServing.js';
import type { Store } from './store.js';
import type { StoreContext } from './storeContext.js';
import { sharedRequestCount, type RequestsInProgress } from './vocabulary/requestsInProgress.js';
import { StoreUnavailable } from './vocabulary/storeErrors.js';
import type { StoreLog } from './vocabulary/storeLog.js';
import { apiWrites } from './writes/apiWrites.js';

export interface StoreOptions {
  /** How reads are spread over the engine's read replicas (requests/readRouting.ts). */
  routing: ReadRoutingOptions;
  log: StoreLog;
  /** The count the engine's threads were given, if any (see `ServerStore.requestsInProgress`). */
  requestsInProgress?: RequestsInProgress;
}

/**
 * The one store over any engine: every rule of the service once, in parts of one concern each
 * (the key check, the reads and their routing, the API's writes, the imports' runs,
 * administration) over the engine's steps (engine/engine.ts). Every operation's errors pass
 * through the engine's translation into the store's own.
 */
export function storeOver(engine: Engine, options: StoreOptions = { routing: DEFAULT_READ_ROUTING, log: { warn() {}, error() {} } }): Store {
  const logPosition = engine.logPosition?.bind(engine);
  // Reads that hold the thread (SQLite's) are taken in turns; others run as they come.
  const turns = engine.synchronousReads ? fairQueue() : undefined;
  const context: StoreContext = {
    engine,
    router: engine.replicas.length > 0 && logPosition ? readRouter(engine.replicas, logPosition, options.routing, options.log) : undefined,
    log: options.log,
    unreachable: (error) => engine.storeError(error) instanceof StoreUnavailable,
    inTurn: turns ?? (async (work) => work()),
  };
  const keys = keyCheck(context);
  const store: Store = {
    authenticate: keys.authenticate,
    servedBy: keys.servedBy,
    confirm: keys.confirm,
    ...readServing(context, keys),
    ...apiWrites(context),
    ...importRuns(context),
    ...administration(context, keys),
    ...statementChanges(context),
    ...webhookEndpoints(context),
    ...webhookCallLog(context),
    ...webhookOutbox(context),
    requestsInProgress: options.requestsInProgress ?? sharedRequestCount(),
    takeLease: (claim) => engine.inWriteTransaction(async (steps) => steps.takeLease(claim)),
    releaseLease: (name, owner) => engine.inWriteTransaction(async (steps) => steps.releaseLease(name, owner)),
    databaseBytes: () => engine.databaseBytes(),
    close: () => {
      context.router?.close();
      return engine.close();
    },
  };
  return translatingErrors(store, (error) => engine.storeError(error));
}
