/**
 * The opaque `cursor` parameter that `next` may carry besides `limit` and `offset`
 * (docs/rules.md#paging): the key of the last row of a page, bound to the offset it continues
 * from and to the filters of the request (`scope`). It is only a shortcut: a cursor issued for
 * another offset or other filters is ignored and the page is found by `offset`, so a client
 * that rebuilds the URL from `offset` and `limit` (with or without a stale cursor) still gets
 * the right page.
 */

export type CursorReading =
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'stale' }
  | { readonly kind: 'malformed' };

export function encodeCursor(offset: bigint, scope: string, key: string): string {
  return Buffer.from(JSON.stringify([String(offset), scope, key]), 'utf8').toString('base64url');
}

/** What a `cursor` says for a request at `offset` with filters `scope`. */
export function readCursor(text: string, offset: bigint, scope: string): CursorReading {
  let decoded: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) return { kind: 'malformed' };
    decoded = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return { kind: 'malformed' };
  }
  if (!Array.isArray(decoded) || decoded.length !== 3 || !decoded.every((part) => typeof part === 'string')) {
    return { kind: 'malformed' };
  }
  const [issuedOffset, issuedScope, key] = decoded as [string, string, string];
  return issuedOffset === String(offset) && issuedScope === scope ? { kind: 'key', key } : { kind: 'stale' };
}
