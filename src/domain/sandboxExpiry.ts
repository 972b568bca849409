/** The longest time to live a sandbox may be given, in seconds (a year; openapi/admin.yaml). */
export const MAX_TTL_SECONDS = 365 * 24 * 3600;

/**
 * When a sandbox given `ttlSeconds` at `fromMs` (milliseconds since the epoch) expires, as ISO
 * 8601 in UTC (the form every stored time has, so that stored times compare as text); `null`
 * when it has no time to live.
 */
export function expiryAfter(fromMs: number, ttlSeconds: number | null): string | null {
  return ttlSeconds === null ? null : new Date(fromMs + ttlSeconds * 1000).toISOString();
}
