/** Median of a non-empty list of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Rotates `items` by `round` places: each repetition runs the scenarios in another order. */
export function rotated<T>(items: readonly T[], round: number): T[] {
  const shift = round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/**
 * The order of round `round`: rotated by a third of the list more each round and reversed on
 * odd rounds, so that no scenario always runs after the same one (a run that heats the page
 * cache or leaves the garbage collector busy would otherwise always favour or harm its follower).
 */
export function alternated<T>(items: readonly T[], round: number): T[] {
  const order = rotated(items, round * Math.max(1, Math.floor(items.length / 3)));
  return round % 2 === 1 ? order.reverse() : order;
}

/** The `p`-th percentile (0 < p <= 100, nearest rank) of ascending `sorted`, which is not empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
