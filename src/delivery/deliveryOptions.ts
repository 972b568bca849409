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
}

export const DELIVERY_DEFAULTS: DeliveryOptions = { timeoutMs: 10_000, allowPrivate: false, retries: DEFAULT_RETRIES, pollMs: 1_000 };
