import { encodeCursor, readCursor } from '../../domain/cursor.js';
import { firstPosition, pageOutcome } from '../../domain/paging.js';
import type { Page, PageQuery, Source } from '../vocabulary/readShapes.js';
import type { PagedSource } from '../engine/pagedSource.js';

/** A page as read from a source; the store adds the version of the data. */
type PageRead = Omit<Page, 'version'>;
export type PageReadOutcome = PageRead | 'badCursor';

const EMPTY_PAGE: PageRead = { count: 0, json: Buffer.alloc(0), more: false };

/**
 * A page of `source` (docs/rules.md#paging), whatever the engine: up to `limit` records and
 * whether more follow, read in one statement (no cursor stays open on a connection). A source
 * with dense positions is read by position, its records joined by the database. A source that
 * seeks by key reads after the key of the query's `cursor` when it was issued for this offset
 * and these filters (`scope`), by position otherwise, and puts the key of its last record into
 * the `cursor` of the page (`scope`: the filters a cursor is bound to, asked for only by such
 * sources).
 */
export async function readPage(source: PagedSource, query: PageQuery, scope: () => string): Promise<PageReadOutcome> {
  const { limit } = query;
  const from = firstPosition(query.offset);
  if (from === undefined) return EMPTY_PAGE;
  if (source.joined && !source.seek) return source.joined(from, limit);
  if (!source.seek) return joinRows(await source.rows(from, limit + 1), query).page;
  const reading = query.cursor === undefined ? undefined : readCursor(query.cursor, query.offset, scope());
  if (reading?.kind === 'malformed') return 'badCursor';
  const keyed = reading?.kind === 'key' ? await source.seek.rowsAfter(reading.key, limit + 1) : await source.seek.keyedRows(from, limit + 1);
  if (!keyed) return 'badCursor';
  const { page, nextOffset } = joinRows(keyed.map(([row]) => row), query);
  if (nextOffset === undefined) return page;
  return { ...page, cursor: encodeCursor(nextOffset, scope(), keyed[page.count - 1]![1]) };
}

/** The filters of `source` a `cursor` is bound to (a cursor of other filters is not used). */
export function scopeOf(source: Source): string {
  const { kind: _kind, ...filters } = source;
  return JSON.stringify(Object.entries(filters).filter(([, value]) => value !== undefined));
}

/** A page from up to `limit + 1` separately read rows (the extra one says whether more follow). */
function joinRows(rows: readonly string[], query: PageQuery): { page: PageRead; nextOffset?: bigint } {
  const { count, nextOffset } = pageOutcome(query, rows.length);
  return { page: { count, json: Buffer.from(rows.slice(0, count).join(',')), more: nextOffset !== undefined }, nextOffset };
}
