import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Context, Middleware } from 'koa';
import { pino, type DestinationStream, type Logger } from 'pino';
import { KEY_TEXT } from '../store/apiKeys.js';
import { closedStatus, onResponseClose } from './responseClose.js';

export type { DestinationStream, Logger };
import type { LogLevel } from './logLevels.js';

export type { LogLevel };

/**
 * Headers that never reach a log line, whatever the level: the key itself, and a webhook call's
 * secret and signature, should a line ever carry them. At `debug` the request line carries the
 * request's headers; pino's redaction replaces these.
 */
const REDACTED_PATHS = ['headers["x-api-key"]', 'headers.authorization', 'headers.cookie', 'headers["x-webhook-secret"]', 'headers["webhook-signature"]'];

/**
 * One JSON object per line (pino): `time` (ISO 8601), `level`, `msg`, and the fields of the
 * event. Written asynchronously to standard output unless told otherwise; pino flushes what is
 * pending when the process exits.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/**
 * Writes out every line logged so far, in order, and ends the log: for a process about to exit.
 * (pino's own flush at exit writes what is pending synchronously, which can land before a line
 * whose asynchronous write is still under way.) Standard output itself stays open.
 */
export function endLog(logger: Logger): Promise<void> {
  const destination = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as Partial<EventEmitter> & { end?: () => void };
  if (typeof destination.end !== 'function' || !destination.once) return new Promise((resolve) => logger.flush(() => resolve()));
  return new Promise((resolve) => {
    destination.once!('close', () => resolve());
    destination.end!();
  });
}

/** A request id the server may adopt from `X-Request-Id`: visible ASCII of the usual kinds. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._~:/+=@-]{1,128}$/;

/** The client's `X-Request-Id` when it is sane, else a new UUID. */
export function requestIdFrom(header: string | undefined): string {
  return header !== undefined && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** The id of the request being served (set by {@link requestLog}). */
export function requestIdOf(ctx: Context): string | undefined {
  return (ctx.state as { requestId?: string }).requestId;
}

/**
 * Gives each request an id (echoed in `X-Request-Id`) and writes one `request` line when the
 * response has ended, sent in full or cut off (`aborted`): method, path (without the query,
 * which may hold e-mail addresses), status, duration in milliseconds. At `debug`, also the
 * query and the headers. A key never appears: the header is redacted, and text shaped like a
 * key in the path or query (a client that put it in the wrong place) is replaced.
 */
export function requestLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const requestId = requestIdFrom(ctx.get('X-Request-Id') || undefined);
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    onResponseClose(ctx.res, () => {
      if (!logger.isLevelEnabled('info')) return;
      const line: Record<string, unknown> = {
        reqId: requestId,
        method: ctx.method,
        path: withoutKeys(ctx.path),
        status: closedStatus(ctx.res),
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      };
      if (!ctx.res.writableFinished) line.aborted = true;
      // Cut off while it waited behind an earlier request of its connection (admission.ts): never begun.
      if ((ctx.state as { waitingForTurn?: boolean }).waitingForTurn) line.queued = true;
      if (logger.isLevelEnabled('debug')) Object.assign(line, { query: withoutKeys(ctx.querystring), headers: { ...ctx.headers } });
      logger.info(line, 'request');
    });
    await next();
  };
}

function withoutKeys(text: string): string {
  return text.includes('cdk_') ? text.replace(KEY_TEXT, 'cdk_[redacted]') : text;
}
