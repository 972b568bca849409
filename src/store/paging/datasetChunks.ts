import type { PagedSource } from '../engine/pagedSource.js';

/** Rows read at a time by `export`: memory stays bounded whatever the tenant's size. */
export const EXPORT_CHUNK = 2_000;

/** A source with dense positions, read chunk by chunk from position 0 (each chunk seeks by position). */
export async function* positionalChunks(source: PagedSource): AsyncGenerator<string[]> {
  for (let from = 0; ; from += EXPORT_CHUNK) {
    const rows = await source.rows(from, EXPORT_CHUNK);
    if (rows.length > 0) yield rows;
    if (rows.length < EXPORT_CHUNK) return;
  }
}

/** A source read by key: each chunk seeks past the last key of the one before. */
export async function* keyedChunks(source: PagedSource): AsyncGenerator<string[]> {
  const seek = source.seek!;
  let rows = await seek.keyedRows(0, EXPORT_CHUNK);
  while (rows.length > 0) {
    yield rows.map(([row]) => row);
    if (rows.length < EXPORT_CHUNK) return;
    rows = (await seek.rowsAfter(rows[rows.length - 1]![1], EXPORT_CHUNK)) ?? [];
  }
}
