/**
 * A small seeded pseudo-random generator, so that the seed dataset is the same byte for byte
 * for the same seed on every machine: sfc32 (Chris Doty-Humphrey's "Small Fast Counting"
 * generator, 128 bits of state, passes PractRand), seeded from a text by cyrb128.
 * See https://github.com/bryc/code/blob/master/jshash/PRNGs.md
 *
 * Not for secrets: it is predictable by design.
 */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, bound). */
  int(bound: number): number;
  /** An integer in [min, max], both included. */
  between(min: number, max: number): number;
  /** true with probability `probability`. */
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** One of `choices`, each as likely as its weight. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T;
  /** A standard normal variate (Box-Muller). */
  normal(): number;
  /** exp(N(mu, sigma)): positive and right-skewed, like payments and deal sizes. */
  logNormal(mu: number, sigma: number): number;
}

/** cyrb128: four 32-bit words mixed from `text`, the sfc32 seed. */
function seedWords(text: string): [number, number, number, number] {
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
  for (let i = 0; i < text.length; i += 1) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

function sfc32(seed: string): () => number {
  let [a, b, c, d] = seedWords(seed);
  const step = (): number => {
    a |= 0; b |= 0; c |= 0; d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i += 1) step(); // discard the first outputs, weakly mixed
  return step;
}

export function createRandom(seed: string): Random {
  const next = sfc32(seed);
  const int = (bound: number): number => Math.floor(next() * bound);
  const normal = (): number => {
    const u = 1 - next(); // (0, 1]: log(0) is never taken
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  return {
    next,
    int,
    between: (min, max) => min + int(max - min + 1),
    chance: (probability) => next() < probability,
    pick: (items) => {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[int(items.length)]!;
    },
    weighted: (choices) => {
      let remaining = next() * choices.reduce((sum, [, weight]) => sum + weight, 0);
      for (const [value, weight] of choices) {
        remaining -= weight;
        if (remaining < 0) return value;
      }
      return choices[choices.length - 1]![0];
    },
    normal,
    logNormal: (mu, sigma) => Math.exp(mu + sigma * normal()),
  };
}
