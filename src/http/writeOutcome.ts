import type { Context as KoaContext } from 'koa';
import type { RulesBroken } from '../domain/bulkItems.js';
import type { WriteOutcome } from '../store/vocabulary/writeShapes.js';
import type { RequestState } from './handlerTypes.js';
import { problems } from './problems.js';

/** A write's `Idempotency-Key`, when the request sent one (docs/rules.md#retries). */
export const idempotencyKeyOf = (ctx: KoaContext): string | undefined => ctx.get('Idempotency-Key') || undefined;

/**
 * What a bulk's handler does with the store's outcome: the lock wait for the metrics, a `422`
 * for a broken rule (nothing was written), else the consistency token of the write (sent back
 * on a read, it gets a server that has this write: see "Read replicas") and what was written.
 */
export function writtenOrRefused<T>(ctx: KoaContext & { state: RequestState }, outcome: WriteOutcome<T>): T {
  ctx.state.lockWaitMs = outcome.lockWaitMs;
  if ('broken' in outcome) throw rulesBrokenProblem(outcome.broken);
  if (outcome.consistency !== undefined) ctx.set('Compdata-Consistency', outcome.consistency);
  // The first answer to this Idempotency-Key again: nothing was written this time.
  if (outcome.replayed) ctx.set('Idempotent-Replayed', 'true');
  return outcome.written;
}

/** The `422` problem of broken rules, each violation pointing at its item, field or header. */
export function rulesBrokenProblem({ detail, violations }: RulesBroken) {
  const errors = violations.map(({ index, field, pointer, message }) => ({
    pointer: pointer ?? (index === undefined ? '/data' : field === undefined ? `/data/${index}` : `/data/${index}/${field}`),
    message,
  }));
  return problems.unprocessable(errors, detail);
}
