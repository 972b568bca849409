import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, Middleware } from 'koa';
import { createRandom } from '../dataset/random.js';
import type { FaultSpec } from './faultSpec.js';
import { requestIdOf, type Logger } from './logging.js';
import { problems, respondWithProblem } from './problems.js';

/** The header that marks an answer carrying injected faults (declared in the contract). */
const FAULT_HEADER = 'Compdata-Fault';
/** A trickled answer: this many bytes at a time... */
export const SLOW_PIECE_BYTES = 1024;
/** ...one piece every this many milliseconds (10 KiB/s). */
export const SLOW_PAUSE_MS = 100;
/**
 * A reset answer: the connection is reset this long after its first half-chunk was written (a
 * reset throws away what the peer has not read yet: the wait lets a client read the half).
 */
const RESET_AFTER_MS = 500;

/**
 * `serve --faults` (see faultSpec.ts): faults injected into the answers of the API's operations
 * (paths under `/v1/`; `/healthz`, `/docs` and `/openapi.json` are served as ever, so that
 * probes and the reference keep working), for people testing their clients against the real
 * contract. Each fault injected is logged (`fault injected`, with the request id) and named in
 * the answer's `Compdata-Fault` header: `latency=123ms`, `503`, `reset`, `slow`.
 *
 * Sits outside compression, so that a cut or a trickle applies to the bytes on the wire.
 */
export function injectFaults(spec: FaultSpec, logger: Logger): Middleware {
  const random = createRandom(spec.seed === undefined ? randomUUID() : String(spec.seed));
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/v1/')) {
      await next();
      return;
    }
    const injected: string[] = [];
    const inject = (fault: string) => {
      injected.push(fault);
      ctx.set(FAULT_HEADER, injected.join(', '));
      logger.info({ reqId: requestIdOf(ctx), fault }, 'fault injected');
    };
    if (spec.latencyMs) {
      const waitMs = random.between(spec.latencyMs.min, spec.latencyMs.max);
      inject(`latency=${waitMs}ms`);
      await sleep(waitMs);
    }
    if (random.chance(spec.unavailable)) {
      inject('503');
      respondWithProblem(ctx, problems.serviceUnavailable(1, 'A fault injected by this server (it runs with --faults, for testing clients); try again.'));
      return;
    }
    const reset = random.chance(spec.reset);
    const slow = random.chance(spec.slow);
    await next();
    if (reset) {
      inject('reset');
      await resetMidway(ctx);
    } else if (slow) {
      inject('slow');
      trickle(ctx);
    }
  };
}

/** The answer's body as bytes, chunk by chunk (nothing for none). */
function bodyChunks(body: unknown): AsyncIterable<Buffer> | Buffer[] {
  if (body === null || body === undefined) return [];
  if (Buffer.isBuffer(body)) return [body];
  if (typeof body === 'string') return [Buffer.from(body)];
  if (body instanceof Readable) return body;
  return [Buffer.from(JSON.stringify(body))];
}

/**
 * Sends the status, the headers and half of the body's first chunk, then resets the
 * connection (TCP RST): the client sees its answer begin and break off.
 */
async function resetMidway(ctx: Context): Promise<void> {
  let first: Buffer = Buffer.alloc(0);
  for await (const chunk of bodyChunks(ctx.body)) {
    first = Buffer.from(chunk);
    break;
  }
  if (ctx.body instanceof Readable) ctx.body.destroy();
  ctx.respond = false;
  const { res } = ctx;
  res.statusCode = ctx.status;
  for (const [name, value] of Object.entries(ctx.response.headers)) if (value !== undefined) res.setHeader(name, value as string | string[]);
  const half = first.subarray(0, Math.ceil(first.length / 2));
  await new Promise<void>((resolve) => (half.length > 0 ? res.write(half, () => resolve()) : (res.flushHeaders(), resolve())));
  await sleep(RESET_AFTER_MS);
  res.socket?.resetAndDestroy();
}

/** Replaces the body with the same bytes, {@link SLOW_PIECE_BYTES} every {@link SLOW_PAUSE_MS}. */
function trickle(ctx: Context): void {
  const length = ctx.response.length;
  const source = bodyChunks(ctx.body);
  if (ctx.method === 'HEAD' || ctx.body === null || ctx.body === undefined) return;
  ctx.body = Readable.from(pieces(source));
  if (length !== undefined) ctx.length = length;
}

async function* pieces(source: AsyncIterable<Buffer> | Buffer[]): AsyncGenerator<Buffer> {
  let first = true;
  for await (const chunk of source) {
    const bytes = Buffer.from(chunk);
    for (let at = 0; at < bytes.length; at += SLOW_PIECE_BYTES) {
      if (!first) await sleep(SLOW_PAUSE_MS);
      first = false;
      yield bytes.subarray(at, at + SLOW_PIECE_BYTES);
    }
  }
}
