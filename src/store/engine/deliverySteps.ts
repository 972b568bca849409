import { faultsOfStored } from '../../domain/webhookFaults.js';
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
 * A claimed call's row as both engines read it: the call's columns and its endpoint's, flat
 * (`secretHeader`: a boolean, or SQLite's 1 and 0; `faults`: their stored JSON).
 */
export interface StoredCallRow extends Omit<StoredCall, 'endpoint'> {
  readonly endpointId: string;
  readonly url: string;
  readonly secretHeader: boolean | number;
  readonly secret: string;
  readonly signingSecret: string;
  readonly previousSigningSecret: string | null;
  readonly faults: string | null;
}

/** A {@link StoredCall} from its row. */
export function storedCallOf(row: StoredCallRow): StoredCall {
  const { endpointId, url, secretHeader, secret, signingSecret, previousSigningSecret, faults, ...stored } = row;
  return { ...stored, endpoint: { id: endpointId, url, secretHeader: Boolean(secretHeader), secret, signingSecret, previousSigningSecret, faults: faultsOfStored(faults) } };
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
