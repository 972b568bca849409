import type { WebhookFaults } from '../../domain/webhookFaults.js';
import type { LoggedAttempt } from './callLogShapes.js';
import type { WebhookEvent } from './webhookShapes.js';

/**
 * A claim of webhook calls by one server's delivery worker (docs/administration.md#delivery):
 * `owner` holds each call it claims until `until`, unless it records an attempt first; times in
 * milliseconds since the epoch, as the caller's clock says.
 */
export interface CallClaim {
  readonly owner: string;
  readonly now: number;
  readonly until: number;
  /** Calls wanted at most. */
  readonly limit: number;
}

/** The endpoint a call goes to, with what its headers are made of. */
export interface CallEndpoint {
  /** `whe_…`: the calls held back for a fault wait for a later call of the same endpoint. */
  readonly id: string;
  readonly url: string;
  readonly secretHeader: boolean;
  /** The `X-Webhook-Secret` value. */
  readonly secret: string;
  readonly signingSecret: string;
  /** The signing secret a rotation replaced, while it is valid; `null` otherwise. */
  readonly previousSigningSecret: string | null;
  readonly faults: WebhookFaults;
}

/** The statement of a call as it is when the call is made. */
export interface CallStatement {
  readonly userId: string;
  readonly email: string;
  readonly month: number;
  /** The statement's v2 fields (`,"standard.status":…,"standard.total_commission":…`), as its records carry them. */
  readonly fieldsV2: string;
  /** Its reporting records as the v2 read of statements renders them, in order, joined by commas. */
  readonly records: string;
  readonly recordCount: number;
}

/** A call claimed for an attempt, with everything the attempt is made of. */
export interface ClaimedCall {
  readonly tenantId: number;
  /** Its `webhook-id`. */
  readonly id: string;
  readonly event: WebhookEvent;
  /** When the event happened (ISO 8601). */
  readonly createdAt: string;
  /** Attempts made before this one. */
  readonly attempts: number;
  /** Attempts made before its current series (a resend starts one), which the retry schedule counts from. */
  readonly seriesFrom: number;
  readonly endpoint: CallEndpoint;
  /** `undefined` when the statement is no longer stored (its user's data replaced since). */
  readonly statement: CallStatement | undefined;
}

/** One attempt of a call, as recorded (its fields as the log shows them), and the state the call is left in. */
export interface CallAttempt extends LoggedAttempt {
  readonly tenantId: number;
  readonly callId: string;
  /** The server that claimed the call: only its claim is ended by the record. */
  readonly owner: string;
  readonly state: 'pending' | 'delivered' | 'failed';
  /** When the next attempt is due (ISO 8601), for a call left pending. */
  readonly nextAttemptAt: string;
  /**
   * The endpoint's faults that shaped it (domain/webhookFaults.ts): `duplicate` for the second
   * sending of a delivered call (which leaves it delivered), else what held or delayed it; `null` for none.
   */
  readonly fault: string | null;
}
