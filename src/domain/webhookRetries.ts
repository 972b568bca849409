/**
 * When a failed webhook call is tried again (docs/rules.md#webhook-delivery): exponential
 * backoff with full jitter. The wait after attempt `n` is drawn evenly from 0 up to
 * `min(cap, base × factor^(n-1))`, so that calls that failed together spread out; after the last
 * attempt allowed, the call has failed for good. `scale` multiplies every time (1 in service; a
 * fraction compresses the schedule for tests).
 */
export interface RetrySchedule {
  readonly baseMs: number;
  readonly factor: number;
  readonly capMs: number;
  /** Attempts allowed in all, the first included. */
  readonly attempts: number;
  readonly scale: number;
}

/** 5 s, doubling, at most an hour, twelve attempts: the last within about two and a half hours of the first at most. */
export const DEFAULT_RETRIES: RetrySchedule = { baseMs: 5_000, factor: 2, capMs: 3_600_000, attempts: 12, scale: 1 };

/** The longest wait after attempt `attempt` (1 for the first) failed. */
export function retryBoundMs(schedule: RetrySchedule, attempt: number): number {
  return Math.min(schedule.capMs, schedule.baseMs * schedule.factor ** (attempt - 1)) * schedule.scale;
}

/**
 * What follows the failed attempt `attempt`: another after `waitMs` (full jitter: `random`, from
 * 0 up to but not 1, times the bound), or none (`failed`) once every attempt allowed was made.
 */
export function afterFailure(schedule: RetrySchedule, attempt: number, random: number): { readonly retry: true; readonly waitMs: number } | { readonly retry: false } {
  if (attempt >= schedule.attempts) return { retry: false };
  return { retry: true, waitMs: Math.floor(random * retryBoundMs(schedule, attempt)) };
}
