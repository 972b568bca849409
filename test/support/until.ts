import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits for a condition, never a fixed time: resolves with the first value of `probe` that is
 * neither `undefined` nor `false`, probing every 20 ms; fails after `ms` (by default a bound
 * generous enough for a loaded machine), naming `what` it waited for.
 */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting until ${what}`);
    await sleep(20);
  }
}
