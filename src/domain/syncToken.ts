/**
 * The tokens of incremental sync (`changed_since`, `sync_token`): a position in a listing's
 * change order, opaque to the client.
 *
 * Every transaction that changes a tenant's records takes the next number of the tenant's
 * change counter, its stamp, and writes it on what it changed: a record's row when its content
 * changed, a reporting record's dimension fields (one row per user and month) when they
 * changed. A record's change is the later of the two. The change order is
 * `(stamp, stream, a, b, c)`: within one stamp, records whose dimension fields changed come
 * first (stream 0, by user, month and position: `a`, `b`, `c`), then records whose own row
 * changed (stream 1, by position: `a`). Stream 2 with a stamp stands for "after everything
 * of that stamp": the `sync_token` of a last page, and `changed_since=0`.
 */

/** A position in the change order: the walk goes on after it. */
export interface ChangePosition {
  readonly stamp: number;
  readonly stream: 0 | 1 | 2;
  readonly a: number;
  readonly b: number;
  readonly c: number;
}

/** `changed_since=0`: before every change. */
export const START: ChangePosition = { stamp: 0, stream: 2, a: 0, b: 0, c: 0 };

/** A key past every user, month and position a store holds. */
export const AFTER_ALL = Number.MAX_SAFE_INTEGER;
/** A key before every user, month and position a store holds (they are all at least 0). */
const BEFORE_ALL = -1;

/** What a `changed_since` says, for the listing `scope` of the tenant `tenantId`. */
export type TokenReading = { readonly kind: 'position'; readonly position: ChangePosition; readonly fromStart: boolean } | { readonly kind: 'malformed' };

const VERSION = 1;

/** The token of `position` in the listing `scope` (`reporting`, `table:<key>`) of a tenant. */
export function encodeSyncToken(tenantId: number, scope: string, position: ChangePosition): string {
  const { stamp, stream, a, b, c } = position;
  return Buffer.from(JSON.stringify([VERSION, tenantId, scope, stamp, stream, a, b, c]), 'utf8').toString('base64url');
}

/** Reads a `changed_since`: `0`, or a token issued for this tenant and listing. */
export function readSyncToken(text: string, tenantId: number, scope: string): TokenReading {
  if (text === '0') return { kind: 'position', position: START, fromStart: true };
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return { kind: 'malformed' };
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return { kind: 'malformed' };
  }
  if (!Array.isArray(decoded) || decoded.length !== 8) return { kind: 'malformed' };
  const [version, tenant, issuedScope, stamp, stream, a, b, c] = decoded as unknown[];
  const keys = [stamp, a, b, c];
  if (version !== VERSION || tenant !== tenantId || issuedScope !== scope) return { kind: 'malformed' };
  if (!keys.every((key) => Number.isSafeInteger(key) && (key as number) >= BEFORE_ALL) || (stamp as number) < 0) return { kind: 'malformed' };
  if (stream !== 0 && stream !== 1 && stream !== 2) return { kind: 'malformed' };
  return { kind: 'position', position: { stamp, stream, a, b, c } as ChangePosition, fromStart: false };
}

/**
 * Where each stream resumes after `position`: the dimension-fields stream after
 * `(stamp, user, month, position)`, the record stream after `(stamp, position)`, each bound
 * compared as a row value.
 */
export function resumeBounds(position: ChangePosition): { fields: [number, number, number, number]; records: [number, number] } {
  const { stamp, stream, a, b, c } = position;
  if (stream === 0) return { fields: [stamp, a, b, c], records: [stamp, BEFORE_ALL] };
  if (stream === 1) return { fields: [stamp, AFTER_ALL, AFTER_ALL, AFTER_ALL], records: [stamp, a] };
  return { fields: [stamp, AFTER_ALL, AFTER_ALL, AFTER_ALL], records: [stamp, AFTER_ALL] };
}
