import type { Answer } from '../vocabulary/answer.js';
import type { CallFilter, LoggedAttempt, LoggedCall } from '../vocabulary/callLogShapes.js';

/** A tenant's log of webhook calls and their resends, inside the caller's write transaction. */
export interface CallLogSteps {
  /** Up to `limit` calls whose `seq` is below `before`, newest first, those `filter` takes. */
  calls(filter: CallFilter, before: number, limit: number): Answer<LoggedCall[]>;
  call(id: string): Answer<LoggedCall | undefined>;
  /** The call's attempts, in order. */
  callAttempts(id: string): Answer<LoggedAttempt[]>;
  /**
   * Makes a delivered or failed call pending and due at `now`, a fresh series of attempts after
   * those made (`series_from`); false when the call is pending already or not stored.
   */
  resendCall(id: string, now: string): Answer<boolean>;
}
