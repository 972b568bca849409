/**
 * The faults `compdata serve --faults SPEC` injects, for people testing their clients: a
 * comma-separated list of `name=value`, each name at most once, e.g.
 * `latency=50-400ms,503=2%,reset=1%,slow=1%,seed=42`.
 *
 * - `latency=MINms-MAXms` (or `MIN-MAXms`, or `Nms`): every request waits a time drawn
 *   uniformly from MIN..MAX milliseconds (at most 60000) before it is served;
 * - `503=P%`: a request is answered `503` with `Retry-After: 1` instead of being served;
 * - `reset=P%`: the answer is cut midway and the connection reset;
 * - `slow=P%`: the answer is trickled, a small piece at a time;
 * - `seed=N` (0..4294967295): the draws come from a generator seeded with N, so that a run
 *   of requests meets the same faults every time; without it they are random.
 *
 * P is a percentage from 0 to 100 (up to two decimals). Pure: no clock, no randomness here.
 */
export interface FaultSpec {
  /** The spec as given (what `/healthz` shows). */
  readonly text: string;
  readonly latencyMs?: { readonly min: number; readonly max: number };
  /** Probabilities from 0 to 1. */
  readonly unavailable: number;
  readonly reset: number;
  readonly slow: number;
  readonly seed?: number;
}

/** A spec that cannot be read: the message says what is wrong in one line. */
export class FaultSpecError extends Error {}

const NAMES = ['latency', '503', 'reset', 'slow', 'seed'] as const;
type FaultName = (typeof NAMES)[number];
const MAX_LATENCY_MS = 60_000;

export function parseFaultSpec(text: string): FaultSpec {
  if (text.trim() === '') throw new FaultSpecError('is empty: give faults such as latency=50-400ms,503=2%,reset=1%,slow=1%');
  const seen = new Set<FaultName>();
  let spec: FaultSpec = { text, unavailable: 0, reset: 0, slow: 0 };
  for (const item of text.split(',')) {
    const match = /^([^=]*)=(.*)$/.exec(item);
    if (!match) throw new FaultSpecError(`${JSON.stringify(item)} is not name=value`);
    const [, name, value] = match as unknown as [string, string, string];
    if (!(NAMES as readonly string[]).includes(name)) throw new FaultSpecError(`unknown fault ${JSON.stringify(name)}: known are ${NAMES.join(', ')}`);
    const fault = name as FaultName;
    if (seen.has(fault)) throw new FaultSpecError(`${fault} is given twice`);
    seen.add(fault);
    switch (fault) {
      case 'latency':
        spec = { ...spec, latencyMs: parseLatency(value) };
        break;
      case '503':
        spec = { ...spec, unavailable: parsePercent(fault, value) };
        break;
      case 'reset':
      case 'slow':
        spec = { ...spec, [fault]: parsePercent(fault, value) };
        break;
      case 'seed':
        spec = { ...spec, seed: parseSeed(value) };
        break;
    }
  }
  return spec;
}

function parsePercent(name: string, value: string): number {
  const match = /^(\d{1,3}(?:\.\d{1,2})?)%$/.exec(value);
  const percent = match ? Number(match[1]) : Number.NaN;
  if (!(percent >= 0 && percent <= 100)) throw new FaultSpecError(`${name}=${value}: must be a percentage from 0% to 100%, such as 2% or 0.5%`);
  return percent / 100;
}

function parseLatency(value: string): { min: number; max: number } {
  const match = /^(\d{1,5})(?:(?:ms)?-(\d{1,5}))?ms$/.exec(value);
  const min = Number(match?.[1]);
  const max = match?.[2] === undefined ? min : Number(match[2]);
  if (!match) throw new FaultSpecError(`latency=${value}: must be milliseconds or a range of them, such as 200ms or 50-400ms`);
  if (min > max) throw new FaultSpecError(`latency=${value}: the least time is more than the most`);
  if (max > MAX_LATENCY_MS) throw new FaultSpecError(`latency=${value}: at most ${MAX_LATENCY_MS}ms`);
  return { min, max };
}

function parseSeed(value: string): number {
  const seed = /^\d{1,10}$/.test(value) ? Number(value) : Number.NaN;
  if (!(seed >= 0 && seed <= 0xffffffff)) throw new FaultSpecError(`seed=${value}: must be an integer from 0 to 4294967295`);
  return seed;
}
