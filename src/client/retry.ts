/**
 * Retries, as a wrapper around `fetch` (openapi-fetch hands every request to one `fetch`):
 *
 * - `503` and `429` are tried again after the answer's `Retry-After` (seconds or an HTTP date;
 *   without one, after the backoff). This server's `503` means nothing was done.
 * - A network error (no answer at all, or an answer that breaks off before its end) is tried
 *   again after the backoff, which doubles each time. So that a break is seen here, the body of
 *   an answer that may still be retried is read whole before it is returned.
 * - Only GET and HEAD are retried, unless the caller asks for more (`writes`, or a method's own
 *   `retry` option): a PUT that failed on the network may or may not have been written.
 * - Bounded: at most `attempts` sends, and at most `budgetMs` spent waiting over all of them. A
 *   wait that would pass the budget is not begun: the last answer is returned (and thrown as a
 *   `ProblemError` by the caller) or the last network error is thrown, at once.
 * - An aborted signal ends a wait at once, with the signal's reason.
 */
export interface RetryOptions {
  /** Most sends of one request, the first included (default 4; 1 turns retries off). */
  attempts?: number;
  /** Most milliseconds one request may spend waiting between sends, all waits together (default 30000). */
  budgetMs?: number;
  /** Wait before the first retry after a network error, or a 503/429 without `Retry-After` (default 250 ms); doubled each retry. */
  backoffMs?: number;
  /** Retry PUTs (and any method other than GET and HEAD) as well (default false). */
  writes?: boolean;
}

export type RetryPolicy = Required<RetryOptions>;

const DEFAULT_POLICY: RetryPolicy = { attempts: 4, budgetMs: 30_000, backoffMs: 250, writes: false };

/** The policy for the client's `retry` option: `false` turns retries off. */
export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return { ...DEFAULT_POLICY, attempts: 1 };
  const policy = { ...DEFAULT_POLICY, ...stripUndefined(options ?? {}) };
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1) throw new RangeError(`retry.attempts must be an integer of at least 1 (got ${policy.attempts})`);
  for (const name of ['budgetMs', 'backoffMs'] as const) {
    if (!(policy[name] >= 0)) throw new RangeError(`retry.${name} must be a number of at least 0 (got ${policy[name]})`);
  }
  return policy;
}

export type Send = (request: Request) => Promise<Response>;

const RETRIED_STATUSES = new Set([429, 503]);
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** `send`, trying a request again as `policy` allows. */
export function retryingFetch(send: Send, policy: RetryPolicy): Send {
  return async (request) => {
    const retryable = policy.writes || SAFE_METHODS.has(request.method);
    let waited = 0;
    for (let attempt = 1; ; attempt += 1) {
      const mayRetry = retryable && attempt < policy.attempts;
      let response: Response;
      try {
        // A clone per send: a request's body can be read once.
        response = await send(mayRetry ? request.clone() : request);
        // An answer that breaks off midway (a connection reset mid-page) is a network error too.
        if (mayRetry && !RETRIED_STATUSES.has(response.status)) response = await readWhole(response);
      } catch (error) {
        const wait = policy.backoffMs * 2 ** (attempt - 1);
        if (!mayRetry || request.signal.aborted || waited + wait > policy.budgetMs) throw error;
        await pause(wait, request.signal);
        waited += wait;
        continue;
      }
      if (!mayRetry || !RETRIED_STATUSES.has(response.status)) return response;
      const wait = retryAfterMs(response.headers.get('Retry-After'), Date.now()) ?? policy.backoffMs * 2 ** (attempt - 1);
      if (waited + wait > policy.budgetMs) return response;
      await response.body?.cancel(); // frees the connection while we wait
      await pause(wait, request.signal);
      waited += wait;
    }
  };
}

/** `response` with its body read to the end (it throws when the body breaks off). */
async function readWhole(response: Response): Promise<Response> {
  if (response.body === null) return response;
  const body = await response.arrayBuffer();
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Milliseconds a `Retry-After` value asks for (RFC 9110: delay seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day or month; Date.parse alone would also read `1.5` or `-1` as dates.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // The signal's own reason, whatever the caller aborted with (as fetch rejects), not a wrapper.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    const onAbort = () => {
      clearTimeout(timer);
      abort();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
