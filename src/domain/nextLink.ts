/**
 * The `next` link of a page, one rule for every paged read (docs/rules.md#paging, v1's
 * `changed_since` walks, docs/rules.md#v2-reads): the public base, the operation's path, and a
 * query of the filters carried over with the position the store answered. v1 and sync links
 * write the filters first, then `limit` and the position; v2 links the position first
 * (`start_id`, `limit`), then the filters. Values are form-encoded (URLSearchParams).
 */

/** Where the next page starts, as the store answered it, with the page size to keep. */
export type NextPosition =
  /** A v1 page: `offset`, and the store's `cursor` when it gave one. */
  | { readonly kind: 'offset'; readonly limit: number; readonly offset: bigint; readonly cursor?: string }
  /** A `changed_since` walk: the sync token of the position reached. */
  | { readonly kind: 'sync'; readonly limit: number; readonly token: string }
  /** A v2 page: the id of the page's last record. */
  | { readonly kind: 'v2'; readonly limit: number; readonly startId: string };

/** Query parameters in the order they are written; one whose value is absent is left out. */
type LinkParams = readonly (readonly [name: string, value: string | undefined])[];

export interface LinkTarget {
  /** Scheme and authority (and the path prefix of a configured public URL), no trailing slash. */
  readonly base: string;
  /** The operation's path as a client writes it (encoded), without query. */
  readonly path: string;
  /** The filters to carry, in order. */
  readonly params?: LinkParams;
}

/** The absolute URL of the page that starts at `position`. */
export function nextLink({ base, path, params = [] }: LinkTarget, position: NextPosition): string {
  const at = positionParams(position);
  const query = new URLSearchParams();
  for (const [name, value] of position.kind === 'v2' ? [...at, ...params] : [...params, ...at]) {
    if (value !== undefined) query.append(name, value);
  }
  return `${base}${path}?${query}`;
}

function positionParams(position: NextPosition): LinkParams {
  const limit = String(position.limit);
  switch (position.kind) {
    case 'offset':
      return [['limit', limit], ['offset', String(position.offset)], ['cursor', position.cursor]];
    case 'sync':
      return [['limit', limit], ['changed_since', position.token]];
    case 'v2':
      return [['start_id', position.startId], ['limit', limit]];
  }
}
