import { MAX_FAULT_WAIT_MS } from '../domain/webhookFaults.js';
import { DEFAULT_RETRIES, type RetrySchedule } from '../domain/webhookRetries.js';

/** How the delivery worker of a server works (`compdata serve --webhook-…`, docs/administration.md#delivery). */
export interface DeliveryOptions {
  /** How long an attempt waits for its answer, whole. */
  readonly timeoutMs: number;
  /** Whether endpoints at private and loopback addresses are called. */
  readonly allowPrivate: boolean;
  readonly retries: RetrySchedule;
  /** How often the outbox is looked at when nothing is due sooner. */
  readonly pollMs: number;
  /** How long a claim of a call outlasts its attempt's timeout ({@link DEFAULT_LEASE_MARGIN_MS} when not given). */
  readonly leaseMarginMs?: number;
  /** Told the outcome of each attempt recorded (`/metrics`). */
  readonly onAttempt?: (outcome: AttemptOutcome) => void;
}

/** An attempt's outcome: the call delivered, failed and tried again, or failed for good. */
export type AttemptOutcome = 'delivered' | 'retried' | 'failed';

/**
 * How long a claim outlasts its attempt's timeout by default: time to render the body and record
 * the attempt, and the longest an endpoint's faults hold or delay it.
 */
export const DEFAULT_LEASE_MARGIN_MS = 5_000 + MAX_FAULT_WAIT_MS;

export const DELIVERY_DEFAULTS: DeliveryOptions = { timeoutMs: 10_000, allowPrivate: false, retries: DEFAULT_RETRIES, pollMs: 1_000 };
