/**
 * A source of pre-rendered JSON records in a stable order, read by position (see the
 * invariants in each engine's migrations): `rows(from, n)` returns up to `n` JSON texts from
 * position `from`, `total()` the number of records. One interface serves every paged operation
 * of every engine. Each answer may come at once (SQLite reads on the calling thread) or as a
 * promise (an engine across the network).
 */
export interface PagedSource {
  rows(from: number, n: number): Answer<string[]>;
  total(): Answer<number>;
  /**
   * The fast path of sources with dense positions: the records `rows(from, n)` would return,
   * joined by commas into one UTF-8 buffer by the database itself (no string per record,
   * nothing for the garbage collector), and whether a record follows them.
   */
  joined?(from: number, n: number): Answer<JoinedRows>;
  /**
   * Present on sources whose positions are not stored keys (reading from a position means
   * skipping rows): they also read by key, so that a walker following `next` seeks
   * (docs/rules.md#paging).
   */
  seek?: KeySeek;
}

type Answer<T> = T | Promise<T>;

export interface JoinedRows {
  count: number;
  /** The records' JSON texts, comma-separated (empty when `count` is 0). */
  json: Buffer;
  more: boolean;
}

/** A JSON record and its key in the source's order (a text only the source reads). */
export type KeyedRow = [row: string, key: string];

interface KeySeek {
  /** `rows(from, n)`, each row with its key. */
  keyedRows(from: number, n: number): Answer<KeyedRow[]>;
  /** Up to `n` rows that follow the row whose key is `key`; `undefined` when `key` is not one of this source's keys. */
  rowsAfter(key: string, n: number): Answer<KeyedRow[] | undefined>;
}
