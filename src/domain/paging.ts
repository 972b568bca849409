/**
 * Paged reads (docs/rules.md#paging): exact parsing of `offset` and `limit`, and the arithmetic
 * of a page. `offset` goes up to 2^63 - 1, beyond what a JS number holds exactly, so it is a
 * bigint here. The bounds of `limit` are the contract's, given by the caller.
 */
export const MAX_OFFSET = 9223372036854775807n;

/** The bounds of an operation's `limit`: the `minimum`, `maximum` and `default` of its schema in the contract. */
export interface LimitBounds {
  readonly minimum: number;
  readonly maximum: number;
  readonly default: number;
}

export interface PageRequest {
  offset: bigint;
  limit: number;
}

export interface ParamProblem {
  /** JSON Pointer into the request, `/query/offset`. */
  pointer: string;
  message: string;
}

const DIGITS = /^[0-9]+$/;

/**
 * Reads `offset` and `limit` from raw query values, `limit` within `limits` (its default when
 * absent). Only plain decimal digits are integers here (no sign, exponent, fraction or spaces);
 * leading zeros are allowed.
 */
export function parsePageRequest(rawOffset: unknown, rawLimit: unknown, limits: LimitBounds): PageRequest | ParamProblem[] {
  const problems: ParamProblem[] = [];
  const offset = parseBounded(rawOffset, 0n, MAX_OFFSET, 'offset', problems);
  const limit = parseBounded(rawLimit, BigInt(limits.minimum), BigInt(limits.maximum), 'limit', problems);
  if (problems.length > 0) return problems;
  return { offset: offset ?? 0n, limit: limit === undefined ? limits.default : Number(limit) };
}

function parseBounded(
  raw: unknown,
  min: bigint,
  max: bigint,
  name: string,
  problems: ParamProblem[],
): bigint | undefined {
  if (raw === undefined) return undefined;
  const pointer = `/query/${name}`;
  if (typeof raw !== 'string' || !DIGITS.test(raw)) {
    problems.push({ pointer, message: `must be an integer from ${min} to ${max}` });
    return undefined;
  }
  const value = BigInt(raw);
  if (value < min || value > max) problems.push({ pointer, message: `must be an integer from ${min} to ${max}` });
  return value;
}

/**
 * The position of the first record to read, or `undefined` when `offset` lies beyond any
 * position a store can hold (past `Number.MAX_SAFE_INTEGER`): such a page is empty.
 */
export function firstPosition(offset: bigint): number | undefined {
  return offset > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(offset);
}

/**
 * Given the rows read for a page (up to `limit + 1`, the extra one telling whether more
 * follow), how many to send and the offset of the next page, if any.
 */
export function pageOutcome(request: PageRequest, rowsRead: number): { count: number; nextOffset?: bigint } {
  const count = Math.min(rowsRead, request.limit);
  if (rowsRead > request.limit) return { count, nextOffset: request.offset + BigInt(count) };
  return { count };
}
