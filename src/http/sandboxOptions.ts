/**
 * `serve --sandbox-ttl` and `--sweep-every` (docs/administration.md#time-to-live): a sandbox's time
 * to live when its request sets none, and how often each server looks for expired sandboxes.
 */
export interface SandboxOptions {
  ttlSeconds: number;
  sweepEveryMs: number;
}

/** A day to live; a look every ten seconds. */
export const SANDBOX_DEFAULTS: SandboxOptions = { ttlSeconds: 24 * 3600, sweepEveryMs: 10_000 };
