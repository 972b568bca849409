import type { KeyedFilteredReads, KeyedRead, KeyedReads, KeyedV2Page } from '../engine/keyedReads.js';
import type { StoredKey } from '../engine/readSteps.js';
import { firstRow, statement, storable, textsOf, type Queryable } from './connection.js';
import { joinedTexts, positionsFrom } from './pagedReads.js';
import { recordOf } from './recordParts.js';
import { statementPage, statementPositionOf, tablePage, tableRecordPositionOf } from './v2Reads.js';

/**
 * The key `$2` of the tenant `$1` with its tenant's state, as keys.ts reads them, and whether it
 * grants a read to the secret whose hash is `$3` (active, the hash equal). Named, the tenant
 * routes every statement below to its node on Citus (`api_keys` is a reference table there).
 */
export const keyOfTenant = `k AS MATERIALIZED (
     SELECT k.secret_hash, k.revoked_at IS NOT NULL AS revoked, k.scope, s.empty_fragment, s.data_version,
            k.revoked_at IS NULL AND k.secret_hash = $3 AS granted
     FROM api_keys k JOIN tenant_state s ON s.tenant_id = $1
     WHERE k.id = $2 AND k.tenant_id = $1)`;
/** The tenant's data table whose key is the parameter `key`, looked up only when the key grants the read. */
const tableOfKey = (key: string) => `t AS MATERIALIZED (SELECT pk FROM data_tables WHERE tenant_id = $1 AND key = ${key} AND (SELECT granted FROM k))`;
/** The key's row as one text (a JSON array), parsed by {@link storedKey}; for a data table, whether the tenant has it last. */
export const keyText = (table = '') =>
  `json_build_array(encode(k.secret_hash, 'hex'), k.revoked, k.scope, k.empty_fragment, k.data_version::text${table})::text`;
const tableFound = ', EXISTS (SELECT FROM t)';

/**
 * The page of pagedReads.ts's `reportingRows` (from position `$4`, `$5` records), read only when
 * the key grants it, in position order, and one more row, the key's (a JSON array, where every
 * record is a JSON object): no row at all when the key is no key of the tenant. The tenant's
 * empty fields are the key's row's, read in the same snapshot as the page. PostgreSQL appends the
 * branches of a UNION ALL in order, so the key's row comes first; it is looked for all the same
 * ({@link keyRowOf}), as no ORDER BY promises it: one over both branches would sort (and copy)
 * every record of the page.
 */
const reportingRows = statement<[number, string, Buffer, number, number], { record: string }>(
  `WITH ${keyOfTenant}
   SELECT ${keyText()} AS record FROM k
   UNION ALL
   (SELECT ${recordOf('r', 'd', 'coalesce(d.fragment, (SELECT empty_fragment FROM k))')} AS record
    FROM reporting_records r
    LEFT JOIN LATERAL (
      SELECT d.user_json, d.fragment FROM dimension_values d
      WHERE d.tenant_id = $1 AND d.user_pk = r.user_pk AND d.month = r.month OFFSET 0) AS d ON true
    WHERE (SELECT granted FROM k) AND r.tenant_id = $1 AND ${positionsFrom('r.pos', '$4', '$5')}
    ORDER BY r.pos)`,
);

/** pagedReads.ts's `tableRows` of the data table `$6`, as {@link reportingRows} reads the reporting records: the key's row saying whether the table is the tenant's. */
const tableRows = statement<[number, string, Buffer, number, number, string], { record: string }>(
  `WITH ${keyOfTenant}, ${tableOfKey('$6')}
   SELECT ${keyText(tableFound)} AS record FROM k
   UNION ALL
   (SELECT r.body AS record FROM table_records r
    WHERE r.tenant_id = $1 AND r.table_pk = (SELECT pk FROM t) AND ${positionsFrom('r.pos', '$4', '$5')}
    ORDER BY r.pos)`,
);

/** The key's row of a {@link reportingRows} answer, taken out of `found` (the records stay, in order); `undefined` when there is none. */
function keyRowOf(found: string[]): string | undefined {
  const at = found[0]?.startsWith('[') ? 0 : found.findIndex((text) => text.startsWith('['));
  return at < 0 ? undefined : found.splice(at, 1)[0];
}

/** pagedReads.ts's `reportingTotal`, counted only when the key grants it, beside the key's row; no row when the key is no key of the tenant. */
const reportingTotal = statement<[number, string, Buffer], { key: string; total: number | null }>(
  `WITH ${keyOfTenant}
   SELECT ${keyText()} AS key,
          CASE WHEN k.granted THEN (SELECT coalesce(max(pos) + 1, 0) FROM reporting_records WHERE tenant_id = $1) END AS total
   FROM k`,
);

/** pagedReads.ts's `tableTotal` of the data table `$4`, as {@link reportingTotal} counts the reporting records. */
const tableTotal = statement<[number, string, Buffer, string], { key: string; total: number | null }>(
  `WITH ${keyOfTenant}, ${tableOfKey('$4')}
   SELECT ${keyText(tableFound)} AS key,
          (SELECT coalesce(max(r.pos) + 1, 0) FROM table_records r WHERE r.tenant_id = $1 AND r.table_pk = (SELECT pk FROM t)) AS total
   FROM k`,
);

/**
 * Where a v2 page starts, read only when the key grants it (and, `from t`, the tenant has the
 * table): the position of the record `$4` (null when no record of the structure ever had it,
 * `position`), or -1 without `$4`.
 */
const v2Start = (position: string, from = '') => `p AS MATERIALIZED (SELECT CASE WHEN $4::text IS NULL THEN -1 ELSE ${position} END AS pos ${from} WHERE (SELECT granted FROM k))`;
/** After the key's row, the v2 page's start and the id of the record at its `$5 - 1`th position from it (the last of a page that more follow). */
const v2Ends = (records: string, table = '') =>
  `(SELECT pos FROM p), (SELECT id FROM ${records} WHERE tenant_id = $1${table} AND pos = (SELECT pos FROM p) + $5 - 1)`;
const V2_FIRST = '((SELECT pos FROM p) + 1)';

/**
 * A v2 page of statement records as v2Reads.ts reads it (its start id `$4`, `$5` records: the
 * page and one more), beside the key's row as {@link reportingRows} reads it, which also holds
 * the page's start and the id of its last record ({@link v2Ends}).
 */
const v2StatementRows = statement<[number, string, Buffer, string | null, number], { record: string }>(
  `WITH ${keyOfTenant}, ${v2Start(statementPositionOf('$4'))}
   SELECT ${keyText(`, true, ${v2Ends('reporting_records')}`)} AS record FROM k
   UNION ALL
   (${statementPage(V2_FIRST, '$5')})`,
);

/** The v2 page of the data table whose key is `$6`, as {@link v2StatementRows} reads the statement records. */
const v2TableRows = statement<[number, string, Buffer, string | null, number, string], { record: string }>(
  `WITH ${keyOfTenant}, ${tableOfKey('$6')}, ${v2Start(tableRecordPositionOf('t.pk', '$6', '$4'), 'FROM t')}
   SELECT ${keyText(`${tableFound}, ${v2Ends('table_records', ' AND table_pk = (SELECT pk FROM t)')}`)} AS record FROM k
   UNION ALL
   (${tablePage('(SELECT pk FROM t)', V2_FIRST, '$5')})`,
);

/** The key of a key's row, for a data table whether the tenant has it, and what follows in the row. */
export function storedKey(tenantId: number, text: string): { key: StoredKey; table: boolean; rest: unknown[] } {
  const [hash, revoked, scope, emptyFragment, dataVersion, table, ...rest] = JSON.parse(text) as [string, boolean, StoredKey['scope'], string, string, boolean?, ...unknown[]];
  return { key: { secretHash: Buffer.from(hash, 'hex'), revoked, tenantId, scope, emptyFragment, dataVersion }, table: table ?? true, rest };
}

/** The v2 page of a {@link v2StatementRows} answer whose key's row is taken out: its records and the row's rest. */
function v2PageOf(found: string[], rest: unknown[], n: number): KeyedV2Page {
  const [start, lastId] = rest as [number | null, string | null];
  return { start: start ?? undefined, page: joinedTexts(found, n), lastId: lastId ?? undefined };
}

/** Whether a key's row grants the read to the secret whose hash is `secretHash`. */
export const grants = (key: StoredKey, secretHash: Buffer): boolean => !key.revoked && key.secretHash.equals(secretHash);

/** Nothing read: the key is checked in full, then the listing read as for any key (pagedReads.ts). */
export const unread: KeyedRead<never> = { key: undefined, value: undefined };

/**
 * What a keyed read's texts `found` give: nothing read without the key's row; the key alone when
 * it does not grant the read; otherwise the value made of them (`null`: no such table).
 */
function settledRead<T>(found: string[], tenantId: number, secretHash: Buffer, valueOf: (rest: unknown[]) => T): KeyedRead<T | null> {
  const keyRow = keyRowOf(found);
  if (keyRow === undefined) return unread;
  const { key, table, rest } = storedKey(tenantId, keyRow);
  if (!grants(key, secretHash)) return { key, value: undefined };
  return { key, value: table ? valueOf(rest) : null };
}

/**
 * The reads of ../engine/keyedReads.ts, over a pool. A table key or a start id PostgreSQL cannot
 * hold (see `storable`) is left {@link unread}: the plain read answers it as no table of the
 * tenant's, or no record's id.
 */
export function keyedReads(db: Queryable): Omit<KeyedReads, keyof KeyedFilteredReads> {
  return {
    async total(keyId, secretHash, tenantId, listing) {
      if (listing.kind === 'tableRecords' && !storable(listing.table)) return unread;
      const row =
        listing.kind === 'reporting'
          ? await firstRow(db, reportingTotal, tenantId, keyId, secretHash)
          : await firstRow(db, tableTotal, tenantId, keyId, secretHash, listing.table);
      if (!row) return unread;
      const { key, table } = storedKey(tenantId, row.key);
      if (!grants(key, secretHash)) return { key, value: undefined };
      return { key, value: table ? row.total : null };
    },
    async joined(keyId, secretHash, tenantId, listing, from, n) {
      if (listing.kind === 'tableRecords' && !storable(listing.table)) return unread;
      const found =
        listing.kind === 'reporting'
          ? await textsOf(db, reportingRows, tenantId, keyId, secretHash, from, n + 1)
          : await textsOf(db, tableRows, tenantId, keyId, secretHash, from, n + 1, listing.table);
      return settledRead(found, tenantId, secretHash, () => joinedTexts(found, n));
    },
    async v2Page(keyId, secretHash, tenantId, structure, startId, n) {
      if ((structure.kind === 'table' && !storable(structure.key)) || (startId !== undefined && !storable(startId))) return unread;
      const start = startId ?? null;
      const found =
        structure.kind === 'statements'
          ? await textsOf(db, v2StatementRows, tenantId, keyId, secretHash, start, n + 1)
          : await textsOf(db, v2TableRows, tenantId, keyId, secretHash, start, n + 1, structure.key);
      return settledRead(found, tenantId, secretHash, (rest) => v2PageOf(found, rest, n));
    },
  };
}
