/**
 * What the page statement costs in-process, and what of it is the dimension join (issue "The
 * read path at the machine's limit"): CPU microseconds per page of 100 records at random
 * offsets and of 2000 records at offset 0, for
 * - `serve`: the statement the server runs (`pagedReads(db).reporting(...).joined`);
 * - `ruler`: the SQLite ruler of bareServer.ts (complete JSON stored per record, joined by SQLite);
 * - `bodies only`: the server's statement without the dimension fields (no join, no concatenation);
 * - `join only`: the join without the bodies (the lookup of each record's dimension fields).
 * Needs the read store and the ruler's copy of it (run bench/versus.ts with bare:sqlite once).
 *
 *   node --import tsx bench/pageCost.ts
 */
import Database from 'better-sqlite3';
import { benchConfig } from './config.js';
import { openDatabase } from '../src/store/sqlite/db.js';
import { pagedReads } from '../src/store/sqlite/pagedReads.js';

const config = benchConfig();
const storePath = `${config.workDir}/bench-${config.records}.db`;
const db = openDatabase(storePath, { role: 'server' });
const [tenantId, emptyFragment] = db.prepare<[], [number, string]>('SELECT id, empty_fragment FROM tenants').raw().get()!;
const reporting = pagedReads(db).reporting(tenantId, emptyFragment);
const ruler = new Database(storePath.replace(/\.db$/, '.bare.db'), { readonly: true });
ruler.pragma('mmap_size = 1073741824');

type Range = { owner: number; from: number; to: number };
const aggregate = (sql: string) => {
  const statement = db.prepare<Range>(sql).raw();
  return (from: number, n: number) => statement.get({ owner: tenantId, from, to: from + n });
};
const rulerPage = ruler
  .prepare<{ from: number; to: number }>(`SELECT count(*), CAST(group_concat(json, ',') AS BLOB), EXISTS (SELECT 1 FROM records WHERE pos = @to) FROM records WHERE pos >= @from AND pos < @to`)
  .raw();
const range = 'FROM reporting_records r WHERE r.tenant_id = @owner AND r.pos >= @from AND r.pos < @to';
const variants: Record<string, (from: number, n: number) => unknown> = {
  serve: (from, n) => reporting.joined(from, n),
  ruler: (from, n) => rulerPage.get({ from, to: from + n }),
  'bodies only': aggregate(`SELECT count(*), CAST(group_concat(r.body, ',') AS BLOB) ${range}`),
  'join only': aggregate(
    `SELECT count(*), CAST(group_concat(d.fragment, ',') AS BLOB) FROM reporting_records r
     LEFT JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month
     WHERE r.tenant_id = @owner AND r.pos >= @from AND r.pos < @to`,
  ),
};

for (const [limit, pages] of [[100, 20_000], [2000, 1_000]] as const) {
  for (const round of [0, 1]) {
    for (const [name, read] of Object.entries(variants)) {
      let seed = 7;
      const started = process.cpuUsage();
      for (let i = 0; i < pages; i += 1) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        read(limit === 100 ? seed % (config.records - limit) : 0, limit);
      }
      const used = process.cpuUsage(started);
      // The first round warms the caches; the second is printed.
      if (round === 1) console.log(`limit=${limit} ${name.padEnd(12)} ${((used.user + used.system) / pages).toFixed(1)} µs CPU per page`);
    }
  }
}
