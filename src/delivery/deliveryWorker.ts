import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRandom } from '../dataset/random.js';
import { drawFaults, faultMark, type FaultDraw } from '../domain/webhookFaults.js';
import { afterFailure } from '../domain/webhookRetries.js';
import type { ServerStore } from '../store/store.js';
import type { CallAttempt, ClaimedCall } from '../store/vocabulary/deliveryShapes.js';
import { giveWayToRequests } from '../store/vocabulary/requestsInProgress.js';
import type { StoreLog } from '../store/vocabulary/storeLog.js';
import { DEFAULT_LEASE_MARGIN_MS, type DeliveryOptions } from './deliveryOptions.js';
import { heldCalls } from './heldCalls.js';
import { sendCall, type CallResult } from './outboundCall.js';
import { webhookBody } from './webhookBody.js';
import { webhookHeaders } from './webhookHeaders.js';

/** Attempts a server has in flight at most: a slow endpoint holds one of them, not the others' calls. */
const AT_ONCE = 32;
/** The head of a receiver's answer kept with the attempt. */
const ANSWER_HEAD_BYTES = 1024;

export type DeliveryStore = Pick<ServerStore, 'claimWebhookCalls' | 'recordWebhookAttempt' | 'requestsInProgress'>;

/** Where the worker says what it did (pino's signature). */
export interface DeliveryLog extends StoreLog {
  info(details: object, message: string): void;
}

export interface DeliveryWorker {
  /** A pass now (after the one in progress, if any). */
  deliver(): Promise<void>;
  /** Stops claiming; resolves once the attempts in flight are recorded. */
  stop(): Promise<void>;
}

/**
 * Sends the outbox's webhook calls (docs/administration.md#delivery), in the background of each
 * server: claims due calls, each under a lease of its own that lasts past the attempt's timeout
 * (so that no two servers of a database make an attempt of one call at the same time, and a
 * call claimed by a server that died is taken again once the lease ends), sends them, and records
 * every attempt with the call's new state: `delivered` on a 2xx answer, else `pending` again
 * after a wait of the retry schedule (domain/webhookRetries.ts), or `failed` after the last.
 * Between batches it gives way to the server's requests.
 */
export function startDeliveryWorker(store: DeliveryStore, log: DeliveryLog, options: DeliveryOptions, owner = newOwner()): DeliveryWorker {
  const leaseMs = options.timeoutMs + (options.leaseMarginMs ?? DEFAULT_LEASE_MARGIN_MS);
  // The draws of endpoints' faults (domain/webhookFaults.ts), as `serve --faults` draws its own.
  const random = createRandom(randomBytes(8).toString('hex'));
  const held = heldCalls();
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();
  let stopped = false;
  let passing = false;
  /** When the timer set fires; the soonest retry known that the next pass is to make. */
  let timerDue = Infinity;
  let soonest = Infinity;
  const inFlight = new Set<Promise<void>>();

  /** One sending of the call, at `at`, and its answer; `body` and `headers` made once for a duplicate to repeat. */
  const send = async (call: ClaimedCall, at: Date): Promise<{ body: string; headers?: Record<string, string>; result: CallResult }> => {
    if (!call.statement) return { body: '', result: { outcome: 'error', error: 'the statement is no longer stored', durationMs: 0 } };
    const body = webhookBody({ ...call, statement: call.statement });
    const headers = webhookHeaders(call.id, call.endpoint, body, at);
    return { body, headers, result: await sendCall({ url: call.endpoint.url, headers, body }, outbound) };
  };
  const outbound = { timeoutMs: options.timeoutMs, allowPrivate: options.allowPrivate, answerHeadBytes: ANSWER_HEAD_BYTES };
  /** What the endpoint's faults do before the call is sent: hold it back for a later call to pass it, wait. */
  const beforeSending = async (call: ClaimedCall, draw: FaultDraw): Promise<FaultDraw> => {
    const holding = draw.holdBack && held.hold(call.endpoint.id);
    if (holding) await holding;
    if (draw.delayMs > 0) await sleep(draw.delayMs);
    const shaped = { ...draw, holdBack: holding !== false };
    if (faultMark(shaped) !== null) log.info({ webhookId: call.id, fault: faultMark(shaped) }, 'webhook fault injected');
    return shaped;
  };
  const attempt = async (call: ClaimedCall): Promise<void> => {
    const draw = await beforeSending(call, drawFaults(call.endpoint.faults, () => random.next()));
    const at = new Date();
    const number = call.attempts + 1;
    const { body, headers, result } = await send(call, at);
    if (!draw.holdBack) held.release(call.endpoint.id);
    const delivered = result.outcome === 'answered' && result.status >= 200 && result.status < 300;
    const next = delivered || !call.statement ? { retry: false as const } : afterFailure(options.retries, number - call.seriesFrom, Math.random());
    const nextAt = Date.now() + (next.retry ? next.waitMs : 0);
    if (next.retry) soonest = Math.min(soonest, nextAt);
    const recorded: CallAttempt = {
      ...attemptOf(call, number, at, body, result),
      state: delivered ? 'delivered' : next.retry ? 'pending' : 'failed',
      nextAttemptAt: new Date(nextAt).toISOString(),
      fault: faultMark(draw),
    };
    await store.recordWebhookAttempt(recorded);
    options.onAttempt?.(delivered ? 'delivered' : next.retry ? 'retried' : 'failed');
    const details = { webhookId: call.id, attempt: number, state: recorded.state, status: recorded.status, error: recorded.error, durationMs: result.durationMs };
    if (delivered) log.info(details, 'webhook call delivered');
    else log.warn(details, recorded.state === 'failed' ? 'webhook call failed for good' : 'webhook call failed; it is tried again');
    if (delivered && draw.duplicate && headers) await duplicate(call, number + 1, body, headers, recorded);
  };
  /** The fault `duplicate`: the delivered call sent again as it was (same `webhook-id`, headers and body), recorded as an attempt of its own. */
  const duplicate = async (call: ClaimedCall, number: number, body: string, headers: Record<string, string>, first: CallAttempt): Promise<void> => {
    log.info({ webhookId: call.id, fault: 'duplicate' }, 'webhook fault injected');
    const result = await sendCall({ url: call.endpoint.url, headers, body }, outbound);
    await store.recordWebhookAttempt({ ...first, ...attemptOf(call, number, new Date(), body, result), fault: 'duplicate' });
  };
  const attemptOf = (call: ClaimedCall, number: number, at: Date, body: string, result: CallResult) => ({
    tenantId: call.tenantId,
    callId: call.id,
    owner,
    attempt: number,
    at: at.toISOString(),
    durationMs: result.durationMs,
    status: result.outcome === 'answered' ? result.status : null,
    error: result.outcome === 'error' ? result.error : null,
    answerHead: result.outcome === 'answered' ? result.answerHead : '',
    body,
  });
  const runPass = async (): Promise<void> => {
    const giveWay = giveWayToRequests(store.requestsInProgress);
    while (!stopped) {
      if (inFlight.size >= AT_ONCE) {
        await Promise.race(inFlight);
        continue;
      }
      const started = Date.now();
      const calls = await store.claimWebhookCalls({ owner, now: started, until: started + leaseMs, limit: AT_ONCE - inFlight.size });
      if (calls.length === 0) return;
      for (const call of calls) {
        // An attempt whose record fails (the database away) keeps its claim until the lease ends: then it is made again.
        const made: Promise<void> = attempt(call)
          .catch((error: unknown) => log.warn({ err: error, webhookId: call.id }, 'a webhook attempt could not be recorded; it is made again'))
          .finally(() => {
            inFlight.delete(made);
            wake(soonest);
          });
        inFlight.add(made);
      }
      await giveWay(Date.now() - started);
    }
  };
  /** The next pass at `at` at the latest (never later than a poll from now). */
  const wake = (at: number) => {
    if (stopped || passing) return;
    const due = Math.max(Date.now(), Math.min(Date.now() + options.pollMs, at));
    if (due >= timerDue) return;
    clearTimeout(timer);
    timerDue = due;
    timer = setTimeout(() => void deliver(), due - Date.now()).unref();
  };
  const schedule = () => {
    passing = false;
    timerDue = Infinity;
    const at = soonest;
    soonest = Infinity;
    wake(at);
  };
  const deliver = (): Promise<void> => {
    clearTimeout(timer);
    timerDue = Infinity;
    pass = pass
      .then(() => {
        passing = true;
        return runPass();
      })
      .catch((error: unknown) => log.warn({ err: error }, 'webhook calls could not be claimed now; they are tried again'))
      .finally(schedule);
    return pass;
  };
  schedule();
  return {
    deliver,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      held.releaseAll();
      await pass;
      await Promise.all(inFlight);
    },
  };
}

/** This server among all of a database's: host, process and a random part. */
const newOwner = (): string => `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
