import type { Answer } from '../vocabulary/answer.js';
import type { CallAttempt, CallEndpoint, CallStatement } from '../vocabulary/deliveryShapes.js';
import type { WebhookEvent } from '../vocabulary/webhookShapes.js';

/** A call waiting for an attempt, as the delivery worker finds it across tenants. */
export interface DueCall {
  readonly tenantId: number;
  readonly id: string;
}

/** A claimed call as stored: its event, its statement's key, and its endpoint. */
export interface StoredCall {
  readonly event: WebhookEvent;
  readonly createdAt: string;
  readonly attempts: number;
  readonly seriesFrom: number;
  readonly userId: string;
  readonly month: number;
  readonly endpoint: CallEndpoint;
}

/**
 * The outbox's steps for the delivery worker, inside the caller's write transaction (the search
 * for due calls is a read: `EngineReads.dueWebhookCalls`). Times are ISO 8601 texts, compared as
 * stored.
 */
export interface DeliverySteps {
  /** Claims the call for `owner` until `until`, when it is still pending, due and unclaimed at `now`; whether it did. */
  claimCall(tenantId: number, id: string, owner: string, now: string, until: string): Answer<StoredCall | undefined>;
  /** The statement of the user (by id) in the month with its records as the v2 read renders them; `undefined` when not stored. */
  callStatement(tenantId: number, userId: string, month: number): Answer<CallStatement | undefined>;
  /** Records the attempt (when its call is still stored) and, when `owner` still holds the call, its state. */
  recordAttempt(attempt: CallAttempt): Answer<void>;
}
