/**
 * What a filtered page costs in-process against an unfiltered one (issue 14, filters): CPU
 * milliseconds per page of 2000 records, for
 * - `unfiltered (served)`: the statement the server runs for `GET /v1/reporting?limit=2000`;
 * - `user= (served)`: what the server does for one user's first page (filteredReporting.ts:
 *   the rows read from the index by user, joined into one buffer in JS);
 * - `user= positions only`: the same walk of the index, without reading the records;
 * - `user= bodies only`: the records' bodies looked up from the index (no dimension fields).
 * The user is the one with the most records. Writes bench/results/filtered-page-cost-<time>.md.
 *
 *   node --import tsx bench/filteredPageCost.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { benchConfig } from './config.js';
import { readPage } from '../src/store/paging/pageReading.js';
import { openDatabase } from '../src/store/sqlite/db.js';
import { filteredReporting } from '../src/store/sqlite/filteredReporting.js';
import { pagedReads } from '../src/store/sqlite/pagedReads.js';

const config = benchConfig();
const storePath = `${config.workDir}/bench-${config.records}.db`;
const db = openDatabase(storePath, { role: 'server' });
const [tenantId, emptyFragment] = db.prepare<[], [number, string]>('SELECT id, empty_fragment FROM tenants').raw().get()!;
const [userPk, email, records] = db
  .prepare<[number], [number, string, number]>(
    'SELECT u.pk, u.email, (SELECT count(*) FROM reporting_records r WHERE r.user_pk = u.pk) AS n FROM users u WHERE u.tenant_id = ? ORDER BY n DESC LIMIT 1',
  )
  .raw()
  .get(tenantId)!;
const limit = config.limit;
const byUser = `FROM reporting_records r INDEXED BY reporting_records_by_user_position WHERE r.tenant_id = @tenant AND r.user_pk = @user AND r.pos >= 0 ORDER BY r.pos LIMIT @n`;
const positions = db.prepare(`SELECT r.pos ${byUser}`).raw();
const bodies = db.prepare(`SELECT r.body ${byUser}`).raw();
const unfiltered = pagedReads(db).reporting(tenantId, emptyFragment);
const filtered = filteredReporting(db);
const params = { tenant: tenantId, user: userPk, n: limit };
const query = { offset: 0n, limit };

const variants: Record<string, () => unknown> = {
  'unfiltered (served)': () => unfiltered.joined(0, limit),
  'user= (served)': () => readPage(filtered.reporting(tenantId, emptyFragment, { user: email }), query, () => ''),
  'user= positions only': () => positions.all(params),
  'user= bodies only': () => bodies.all(params),
};

const lines = [`| read (${limit} records, ${email}: ${records} records of ${config.records}) | CPU ms per page |`, '|---|---:|'];
const pages = 300;
for (const round of [0, 1]) {
  for (const [name, read] of Object.entries(variants)) {
    const started = process.cpuUsage();
    for (let i = 0; i < pages; i += 1) await read();
    const used = process.cpuUsage(started);
    // The first round warms the caches; the second is kept.
    if (round === 1) lines.push(`| ${name} | ${((used.user + used.system) / pages / 1000).toFixed(2)} |`);
  }
}
console.log(lines.join('\n'));
mkdirSync(config.resultsDir, { recursive: true });
writeFileSync(`${config.resultsDir}/filtered-page-cost-${new Date().toISOString().replace(/[:.]/g, '-')}.md`, `${lines.join('\n')}\n`);
