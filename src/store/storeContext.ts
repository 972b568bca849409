import type { Engine } from './engine/engine.js';
import type { ReadRouter } from './requests/readRouting.js';
import type { Answer } from './vocabulary/answer.js';
import type { StoreLog } from './vocabulary/storeLog.js';

/** What the parts of the store (storeOver.ts) share: the engine, the replicas' router, the log and the primary's turns. */
export interface StoreContext {
  readonly engine: Engine;
  /** Spreads reads over the engine's read replicas; absent without them. */
  readonly router: ReadRouter | undefined;
  readonly log: StoreLog;
  /** Whether the error says its server cannot be reached now (a replica gone: out of the rotation). */
  readonly unreachable: (error: unknown) => boolean;
  /** Runs a read on the primary: in turns where reads hold the thread (SQLite's, requests/fairQueue.ts), at once elsewhere. */
  readonly inTurn: <T>(work: () => Answer<T>) => Promise<T>;
}
