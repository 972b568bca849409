import type { KeyedRead, KeyedReads } from '../engine/keyedReads.js';
import type { StoredKey } from '../engine/readSteps.js';
import { firstRow, statement, textsOf, type Queryable } from './connection.js';
import { joinedTexts, positionsFrom } from './pagedReads.js';
import { recordOf } from './recordParts.js';

/**
 * The key `$2` of the tenant `$1` with its tenant's state, as keys.ts reads them, and whether it
 * grants a read to the secret whose hash is `$3` (active, the hash equal). Named, the tenant
 * routes every statement below to its node on Citus (`api_keys` is a reference table there).
 */
const keyOfTenant = `k AS MATERIALIZED (
     SELECT k.secret_hash, k.revoked_at IS NOT NULL AS revoked, k.scope, s.empty_fragment, s.data_version,
            k.revoked_at IS NULL AND k.secret_hash = $3 AS granted
     FROM api_keys k JOIN tenant_state s ON s.tenant_id = $1
     WHERE k.id = $2 AND k.tenant_id = $1)`;
/** The key's row as one text (a JSON array), parsed by {@link storedKey}. */
const keyText = `json_build_array(encode(k.secret_hash, 'hex'), k.revoked, k.scope, k.empty_fragment, k.data_version::text)::text`;

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
   SELECT ${keyText} AS record FROM k
   UNION ALL
   (SELECT ${recordOf('r', 'd', 'coalesce(d.fragment, (SELECT empty_fragment FROM k))')} AS record
    FROM reporting_records r
    LEFT JOIN LATERAL (
      SELECT d.user_json, d.fragment FROM dimension_values d
      WHERE d.tenant_id = $1 AND d.user_pk = r.user_pk AND d.month = r.month OFFSET 0) AS d ON true
    WHERE (SELECT granted FROM k) AND r.tenant_id = $1 AND ${positionsFrom('r.pos', '$4', '$5')}
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
   SELECT ${keyText} AS key,
          CASE WHEN k.granted THEN (SELECT coalesce(max(pos) + 1, 0) FROM reporting_records WHERE tenant_id = $1) END AS total
   FROM k`,
);

function storedKey(tenantId: number, text: string): StoredKey {
  const [hash, revoked, scope, emptyFragment, dataVersion] = JSON.parse(text) as [string, boolean, StoredKey['scope'], string, string];
  return { secretHash: Buffer.from(hash, 'hex'), revoked, tenantId, scope, emptyFragment, dataVersion };
}

/** The reads of ../engine/keyedReads.ts, over a pool. */
export function keyedReads(db: Queryable): KeyedReads {
  return {
    async reportingJoined(keyId, secretHash, tenantId, from, n): Promise<KeyedRead<ReturnType<typeof joinedTexts>>> {
      const found = await textsOf(db, reportingRows, tenantId, keyId, secretHash, from, n + 1);
      const keyRow = keyRowOf(found);
      if (keyRow === undefined) return { key: undefined, value: undefined };
      const key = storedKey(tenantId, keyRow);
      const granted = !key.revoked && key.secretHash.equals(secretHash);
      return { key, value: granted ? joinedTexts(found, n) : undefined };
    },
    async reportingTotal(keyId, secretHash, tenantId) {
      const row = await firstRow(db, reportingTotal, tenantId, keyId, secretHash);
      if (!row) return { key: undefined, value: undefined };
      return { key: storedKey(tenantId, row.key), value: row.total ?? undefined };
    },
  };
}
