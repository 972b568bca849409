import type { Worker } from 'node:cluster';
import { problems } from '../http/problems.js';
import { KeyBuckets, type KeyRateLimiter, type RateDecision, type RatePolicy } from '../http/rateLimit.js';

/**
 * Rate limits across `serve --workers`: the buckets live in the primary, and a worker asks it
 * for each keyed request (one message each way over the cluster's IPC channel), so a key's
 * rate is the same whichever worker its connections reach.
 */
interface Ask {
  rateLimitAsk: { id: number; bucket: string };
}
interface GiveBack {
  rateLimitGiveBack: { bucket: string };
}
interface Answer {
  rateLimitAnswer: { id: number; decision: RateDecision };
}

const isAsk = (message: unknown): message is Ask => typeof (message as Ask | null)?.rateLimitAsk?.bucket === 'string';
const isGiveBack = (message: unknown): message is GiveBack => typeof (message as GiveBack | null)?.rateLimitGiveBack?.bucket === 'string';
const isAnswer = (message: unknown): message is Answer => typeof (message as Answer | null)?.rateLimitAnswer?.id === 'number';

/** In the primary: the buckets, and a listener to attach to every worker forked. */
export function answerRateLimitAsks(policy: RatePolicy): (worker: Worker) => void {
  const buckets = new KeyBuckets(policy);
  return (worker) => {
    worker.on('message', (message: unknown) => {
      if (isGiveBack(message)) return buckets.giveBack(message.rateLimitGiveBack.bucket);
      if (!isAsk(message) || !worker.isConnected()) return;
      const { id, bucket } = message.rateLimitAsk;
      worker.send({ rateLimitAnswer: { id, decision: buckets.take(bucket) } } satisfies Answer);
    });
  };
}

/**
 * In a worker: decisions asked of the primary. Should the primary be gone (the worker is then
 * stopping), the request is answered 503, never let through unmetered.
 */
export function askPrimaryRateLimiter(policy: RatePolicy): KeyRateLimiter {
  let lastId = 0;
  const waiting = new Map<number, { resolve: (decision: RateDecision) => void; reject: (error: Error) => void }>();
  process.on('message', (message: unknown) => {
    if (!isAnswer(message)) return;
    const { id, decision } = message.rateLimitAnswer;
    waiting.get(id)?.resolve(decision);
    waiting.delete(id);
  });
  process.once('disconnect', () => {
    for (const { reject } of waiting.values()) reject(problems.serviceUnavailable(1, 'The server is stopping.'));
    waiting.clear();
  });
  return {
    policy,
    take: (bucket) =>
      new Promise<RateDecision>((resolve, reject) => {
        if (!process.connected || !process.send) return reject(problems.serviceUnavailable(1, 'The server is stopping.'));
        const id = (lastId += 1);
        waiting.set(id, { resolve, reject });
        process.send({ rateLimitAsk: { id, bucket } } satisfies Ask);
      }),
    giveBack: (bucket) => {
      if (process.connected && process.send) process.send({ rateLimitGiveBack: { bucket } } satisfies GiveBack);
    },
  };
}
