import type { WebhookEvent } from './webhookShapes.js';

/** Where a webhook call is: waiting for an attempt, delivered, or failed after its last attempt. */
type CallState = 'pending' | 'delivered' | 'failed';

/** Which calls a reading of the log takes: each field given narrows it. */
export interface CallFilter {
  readonly endpointId?: string;
  readonly event?: WebhookEvent;
  readonly state?: CallState;
}

/** A call as the log shows it (docs/administration.md#the-log-of-calls). */
export interface LoggedCall {
  /** Its `webhook-id`. */
  readonly id: string;
  /** Its order among the tenant's calls. */
  readonly seq: number;
  readonly endpointId: string;
  readonly event: WebhookEvent;
  /** Its statement: its user's id and month (index). */
  readonly userId: string;
  readonly month: number;
  readonly state: CallState;
  /** Attempts made, resends' included. */
  readonly attempts: number;
  readonly nextAttemptAt: string;
  readonly createdAt: string;
  /** When it was last sent again by hand; `null` if never. */
  readonly resentAt: string | null;
}

/** One attempt of a call as recorded. */
export interface LoggedAttempt {
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** When it was made (ISO 8601). */
  readonly at: string;
  readonly durationMs: number;
  /** The receiver's status; `null` when none came (the error says why). */
  readonly status: number | null;
  readonly error: string | null;
  readonly answerHead: string;
  /** The body sent ('' when none was). */
  readonly body: string;
}

/** What a resend came to: the call pending again, or nothing changed (`pending` already, or no such call). */
export type ResendOutcome = LoggedCall | 'pending' | 'unknownCall';

/** The outbox's pending calls across tenants, for `/metrics`. */
export interface CallQueue {
  readonly pending: number;
  /** Since when the oldest pending call waits (written, or last sent again by hand); `null` when none is pending. */
  readonly oldestSince: string | null;
}
