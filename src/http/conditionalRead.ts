import { hash } from 'node:crypto';
import type { Context } from 'koa';

/**
 * Conditional paged reads: every page (and `limit=0` count) carries a weak `ETag` made of the
 * version of the tenant's data the store read it at, the request target and the public base
 * its `next` is built on; a request whose `If-None-Match` holds it gets `304` and no body.
 * Weak, because the same page may go out gzip- or br-encoded. The store's version may be older
 * than the data read, never newer (store.ts), so a `304` is never sent for a changed page.
 * `Cache-Control: private, no-cache`: a browser may keep the page but asks again each time
 * (with `If-None-Match`), and shared caches keep nothing (the answer depends on the key).
 */
export function answeredNotModified(ctx: Context, version: string, base: string): boolean {
  const etag = pageEtag(version, base, ctx.url);
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'private, no-cache');
  if (!ifNoneMatchHolds(ctx.get('If-None-Match'), etag)) return false;
  ctx.status = 304;
  return true;
}

function pageEtag(version: string, base: string, target: string): string {
  // One-shot hashing: no Hash object per page (crypto.hash, Node 21.7 and 20.12 on).
  const digest = hash('sha256', `${version}\n${base}\n${target}`, 'base64url');
  return `W/"${digest.slice(0, 32)}"`;
}

/** `If-None-Match` (RFC 9110, 13.1.2): `*`, or a list of entity tags compared weakly. */
function ifNoneMatchHolds(header: string, etag: string): boolean {
  if (header.trim() === '') return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}
