import { createHash } from 'node:crypto';
import { TokenBucket } from 'limiter';
import { problems, type HttpProblem } from './problems.js';

/**
 * Rate limits per key (`serve --rate-limit N[/BURST]`): each key has a token bucket that holds at
 * most `burst` requests and fills at `perSecond` requests a second; a request takes one token,
 * or is answered `429` when there is none. A key unused for a while starts with a full bucket,
 * so a client may send `burst` requests at once, then `perSecond` a second on average: over any
 * span of `s` seconds a key gets at most `burst + perSecond * s` requests served.
 */
export interface RatePolicy {
  perSecond: number;
  burst: number;
}

/** What the bucket said about one request. */
export interface RateDecision {
  allowed: boolean;
  /** Whole requests left in the bucket after this one. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** When refused: seconds until one request is allowed again (at least 1). */
  retryAfterSeconds: number;
}

/** Where decisions come from: buckets in this process, or in the primary of `--workers`. */
export interface KeyRateLimiter {
  readonly policy: RatePolicy;
  take(bucketId: string): Promise<RateDecision>;
  /** Puts back the token a request took, whose key its read then found gone: the limit counts only valid keys. */
  giveBack(bucketId: string): void;
}

/** The bucket of a presented key: a digest, so that no key is held in the bucket table. */
export function bucketIdOf(presentedKey: string): string {
  return createHash('sha256').update(presentedKey).digest('base64url');
}

/** How often buckets that have filled up again are forgotten (a full bucket is a new bucket). */
const SWEEP_MS = 60_000;

/** Token buckets by key, in this process (the library does the bucket arithmetic). */
export class KeyBuckets {
  readonly #buckets = new Map<string, TokenBucket>();
  readonly #sweep: NodeJS.Timeout;

  constructor(readonly policy: RatePolicy) {
    this.#sweep = setInterval(() => this.forgetFull(), SWEEP_MS);
    this.#sweep.unref();
  }

  take(bucketId: string): RateDecision {
    const { perSecond, burst } = this.policy;
    let bucket = this.#buckets.get(bucketId);
    if (!bucket) {
      bucket = new TokenBucket({ bucketSize: burst, tokensPerInterval: perSecond, interval: 1000 });
      bucket.content = burst;
      this.#buckets.set(bucketId, bucket);
    }
    const allowed = bucket.tryRemoveTokens(1); // drips first: `content` is current
    const content = bucket.content;
    return {
      allowed,
      remaining: Math.floor(content),
      resetSeconds: Math.ceil((burst - content) / perSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - content) / perSecond)),
    };
  }

  /** One token back into the bucket (at most full again). */
  giveBack(bucketId: string): void {
    const bucket = this.#buckets.get(bucketId);
    if (bucket) bucket.content = Math.min(bucket.bucketSize, bucket.content + 1);
  }

  /** Buckets held (for tests of the sweep). */
  get size(): number {
    return this.#buckets.size;
  }

  forgetFull(): void {
    for (const [id, bucket] of this.#buckets) {
      bucket.drip();
      if (bucket.content >= bucket.bucketSize) this.#buckets.delete(id);
    }
  }

  close(): void {
    clearInterval(this.#sweep);
  }
}

/** Decisions of buckets held in this process. */
export function localRateLimiter(policy: RatePolicy): KeyRateLimiter {
  const buckets = new KeyBuckets(policy);
  return { policy, take: (bucketId) => Promise.resolve(buckets.take(bucketId)), giveBack: (bucketId) => buckets.giveBack(bucketId) };
}

/** The policy's name in the `RateLimit-Policy` and `RateLimit` fields. */
const POLICY_NAME = 'per-key';

/**
 * The fields of the IETF httpapi RateLimit draft: the policy as a quota `q` of `burst` requests
 * in a window `w` of the seconds an empty bucket takes to fill; the state as `r` requests left
 * and `t` seconds until the bucket is full again.
 */
export function rateLimitHeaders(policy: RatePolicy, decision: RateDecision): Record<string, string> {
  const window = Math.max(1, Math.ceil(policy.burst / policy.perSecond));
  return {
    'RateLimit-Policy': `"${POLICY_NAME}";q=${policy.burst};w=${window}`,
    RateLimit: `"${POLICY_NAME}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}

function tooManyRequests(policy: RatePolicy, decision: RateDecision): HttpProblem {
  const detail = `This key may make ${policy.perSecond} requests a second, ${policy.burst} at once; try again in ${decision.retryAfterSeconds} s.`;
  return problems.tooManyRequests(decision.retryAfterSeconds, detail, rateLimitHeaders(policy, decision));
}

/**
 * Takes a token for the key presented (a request already authenticated) and returns the
 * RateLimit fields for its answer, or throws the 429 (with the same fields).
 */
export async function admitByRate(limiter: KeyRateLimiter, presentedKey: string): Promise<Record<string, string>> {
  const decision = await limiter.take(bucketIdOf(presentedKey));
  if (!decision.allowed) throw tooManyRequests(limiter.policy, decision);
  return rateLimitHeaders(limiter.policy, decision);
}

/** `N` or `N/BURST` (requests a second, requests at once); the burst is N when not given. */
export function parseRatePolicy(text: string): RatePolicy | undefined {
  const match = /^(\d{1,7})(?:\/(\d{1,7}))?$/.exec(text);
  if (!match) return undefined;
  const perSecond = Number(match[1]);
  const burst = match[2] === undefined ? perSecond : Number(match[2]);
  return perSecond >= 1 && burst >= 1 ? { perSecond, burst } : undefined;
}
