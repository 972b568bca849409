import { localRateLimiter, type KeyRateLimiter, type RatePolicy } from '../http/rateLimit.js';
import { answerRateLimitAsks, askPrimaryRateLimiter } from './workerRateLimit.js';
import { isServeWorker, type PrimaryService } from './serveWorkers.js';

/** The buckets in this process, or, in a worker of `--workers`, in the primary. */
export function rateLimiterFor(policy: RatePolicy): KeyRateLimiter {
  return isServeWorker() ? askPrimaryRateLimiter(policy) : localRateLimiter(policy);
}

/** What the primary of `--workers` runs for `--rate-limit`: the one set of buckets. */
export function rateLimitService(policy: RatePolicy | undefined): PrimaryService[] {
  return policy ? [answerRateLimitAsks(policy)] : [];
}
