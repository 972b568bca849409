import { InvalidArgumentError } from 'commander';
import { localRateLimiter, parseRatePolicy, type KeyRateLimiter, type RatePolicy } from '../http/rateLimit.js';
import { answerRateLimitAsks, askPrimaryRateLimiter } from './workerRateLimit.js';
import { isServeWorker, type PrimaryService } from './serveWorkers.js';

/** `--rate-limit N[/BURST]`. */
export function parseRateLimit(text: string): RatePolicy {
  const policy = parseRatePolicy(text);
  if (!policy) throw new InvalidArgumentError('must be N or N/BURST: whole numbers from 1 to 9999999 (requests a second, requests at once).');
  return policy;
}

/** The buckets in this process, or, in a worker of `--workers`, in the primary. */
export function rateLimiterFor(policy: RatePolicy): KeyRateLimiter {
  return isServeWorker() ? askPrimaryRateLimiter(policy) : localRateLimiter(policy);
}

/** What the primary of `--workers` runs for `--rate-limit`: the one set of buckets. */
export function rateLimitService(policy: RatePolicy | undefined): PrimaryService[] {
  return policy ? [answerRateLimitAsks(policy)] : [];
}
