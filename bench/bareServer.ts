/**
 * Rulers for the read path, not products: a plain node:http server answering
 * `GET /v1/reporting?limit=&offset=` with the same bytes as `compdata serve` (the same records,
 * the same envelope and `next`), over the bench's read store. No routing, no validation, no
 * logging. Three ways of finding a page:
 * - `memory`: every record's JSON held in one Buffer at start (no database work per request);
 * - `sqlite`: the records' complete JSON copied at start into a table of their own
 *   (bench/.work/bare-<N>.db), and each page joined by SQLite over the key range
 *   (`group_concat` of the stored JSON, one BLOB), better-sqlite3 on the event loop;
 * - `statement`: the floor of the service's own data model on this stack. The service's page
 *   statement as it was written when this ruler was made (stored bodies joined with the
 *   user-month dimension fields, `group_concat` over the key range; copied here, so that the
 *   ruler stays the same when the service changes), run on the service's own file, with the
 *   service's connection settings and the key check of every request (the key's row looked up
 *   by its id, the SHA-256 of its secret compared): `401` without a valid key, `limit=0` the
 *   count.
 * - `key-in-memory`: the stricter ruler of the service's read path. The page and count
 *   statements the service runs today, imported from src/store/sqlite/pagedReads.ts (not
 *   copied: the ruler follows the service's statement), on the service's own file opened as
 *   `serve` opens it, and the key checked by SHA-256 against one key held in memory (the
 *   store's newest active key, with its tenant, read once at start): no database work for the
 *   key. `401` without that key, `limit=0` the count.
 * `memory` and `sqlite` check no key and answer `limit=0` with a `404`.
 *
 *   node --import tsx bench/bareServer.ts memory|sqlite|statement|key-in-memory STORE_DB
 * The first line of stdout is `listening on <url>`, as for serve; SIGTERM ends it.
 */
import Database from 'better-sqlite3';
import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { openDatabase } from '../src/store/sqlite/db.js';
import { pagedReads } from '../src/store/sqlite/pagedReads.js';

const MODES = ['memory', 'sqlite', 'statement', 'key-in-memory'] as const;
const [mode, storePath] = process.argv.slice(2);
if (!MODES.includes(mode as (typeof MODES)[number]) || !storePath) {
  console.error(`usage: bareServer.ts ${MODES.join('|')} STORE_DB`);
  process.exit(2);
}
const CHUNK = 64 * 1024;

/** A page: its records' JSON joined by commas, and whether a record follows. */
type PageOf = (from: number, limit: number) => { count: number; json: Buffer; more: boolean };

/** The complete records of the store's one tenant, in position order, as compdata's page statement renders them. */
function completeRecords(db: Database.Database): Iterable<[number, string]> {
  return db
    .prepare<[], [number, string]>(
      `SELECT r.pos, r.body || ifnull(d.fragment, t.empty_fragment) FROM reporting_records r
       JOIN tenants t ON t.id = r.tenant_id
       LEFT JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month ORDER BY r.tenant_id, r.pos`,
    )
    .raw()
    .iterate();
}

function inMemory(): PageOf {
  const store = new Database(storePath, { readonly: true });
  // Every record followed by a comma, in one Buffer: a page is one slice of it, without its last comma.
  const parts: Buffer[] = [];
  const starts: number[] = [];
  let at = 0;
  for (const [, json] of completeRecords(store)) {
    const bytes = Buffer.from(`${json},`);
    starts.push(at);
    parts.push(bytes);
    at += bytes.length;
  }
  store.close();
  starts.push(at);
  const all = Buffer.concat(parts);
  const total = starts.length - 1;
  return (from, limit) => {
    const to = Math.min(from + limit, total);
    if (from >= to) return { count: 0, json: Buffer.alloc(0), more: false };
    return { count: to - from, json: all.subarray(starts[from], starts[to]! - 1), more: to < total };
  };
}

function inSqlite(): PageOf {
  const path = storePath!.replace(/\.db$/, '') + '.bare.db';
  if (!existsSync(path)) {
    const copy = new Database(path);
    copy.exec('CREATE TABLE records (pos INTEGER PRIMARY KEY, json TEXT NOT NULL)');
    const store = new Database(storePath, { readonly: true });
    const insert = copy.prepare('INSERT INTO records VALUES (?, ?)');
    copy.transaction(() => {
      for (const [pos, json] of completeRecords(store)) insert.run(pos, json);
    })();
    store.close();
    copy.close();
  }
  const db = new Database(path, { readonly: true });
  db.pragma('mmap_size = 1073741824');
  const page = db
    .prepare<{ from: number; to: number }, [number, Buffer | null, number]>(
      `SELECT count(*), CAST(group_concat(json, ',') AS BLOB), EXISTS (SELECT 1 FROM records WHERE pos = @to)
       FROM records WHERE pos >= @from AND pos < @to`,
    )
    .raw();
  return (from, limit) => {
    const [count, json, more] = page.get({ from, to: from + limit })!;
    return { count, json: json ?? Buffer.alloc(0), more: more === 1 };
  };
}

/** What the `statement` ruler needs per request besides the page: the key check and the count. */
interface Tenancy {
  /** The tenant of a valid key, or `undefined`. */
  tenantOf(key: string | undefined): { tenantId: number; emptyFragment: string } | undefined;
  count(tenantId: number): number;
  pageOf(tenantId: number, emptyFragment: string): PageOf;
}

function ownStatement(): Tenancy {
  const db = new Database(storePath);
  // The connection settings of `compdata serve` (src/store/sqlite/db.ts).
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  db.pragma('mmap_size = 1073741824');
  const page = db
    .prepare<{ owner: number; from: number; n: number; empty: string }, [number, Buffer | null, number]>(
      `SELECT count(*), CAST(group_concat(r.body || ifnull(d.fragment, @empty), ',') AS BLOB),
              EXISTS (SELECT 1 FROM reporting_records WHERE tenant_id = @owner AND pos = @from + @n)
       FROM reporting_records r
       LEFT JOIN dimension_values d ON d.user_pk = r.user_pk AND d.month = r.month
       WHERE r.tenant_id = @owner AND r.pos >= @from AND r.pos < @from + @n`,
    )
    .raw();
  const total = db.prepare<[number], number>('SELECT ifnull(max(pos) + 1, 0) FROM reporting_records WHERE tenant_id = ?').pluck();
  const lookup = db.prepare<[string], { secretHash: Buffer; revoked: number; tenantId: number; emptyFragment: string }>(
    `SELECT k.secret_hash AS secretHash, k.revoked_at IS NOT NULL AS revoked, t.id AS tenantId, t.empty_fragment AS emptyFragment
     FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.id = ?`,
  );
  const decoy = createHash('sha256').update('').digest();
  return {
    tenantOf(key) {
      const match = key === undefined ? null : /^cdk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/.exec(key);
      if (!match) return undefined;
      const row = lookup.get(match[1]!);
      const equal = timingSafeEqual(createHash('sha256').update(match[2]!).digest(), row?.secretHash ?? decoy);
      return row && equal && !row.revoked ? row : undefined;
    },
    count: (tenantId) => total.get(tenantId)!,
    pageOf: (tenantId, empty) => (from, limit) => {
      const [count, json, more] = page.get({ owner: tenantId, from, n: limit, empty })!;
      return { count, json: json ?? Buffer.alloc(0), more: more === 1 };
    },
  };
}

/** The key check of one key held in memory, and the service's own page and count statements (see the top of this file). */
function keyInMemory(): Tenancy {
  const db = openDatabase(storePath!, { role: 'server' });
  const held = db
    .prepare<[], { id: string; secretHash: Buffer; tenantId: number; emptyFragment: string }>(
      `SELECT k.id, k.secret_hash AS secretHash, t.id AS tenantId, t.empty_fragment AS emptyFragment
       FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.revoked_at IS NULL ORDER BY k.created_at DESC, k.rowid DESC LIMIT 1`,
    )
    .get();
  if (!held) throw new Error(`no active key in ${storePath}`);
  const reads = pagedReads(db);
  return {
    tenantOf(key) {
      const match = key === undefined ? null : /^cdk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/.exec(key);
      if (!match) return undefined;
      const equal = timingSafeEqual(createHash('sha256').update(match[2]!).digest(), held.secretHash);
      return equal && match[1] === held.id ? held : undefined;
    },
    count: (tenantId) => reads.reporting(tenantId, held.emptyFragment).total(),
    pageOf: (tenantId, empty) => (from, limit) => reads.reporting(tenantId, empty).joined(from, limit),
  };
}

const tenancy = mode === 'statement' ? ownStatement() : mode === 'key-in-memory' ? keyInMemory() : undefined;
const pageOf = mode === 'memory' ? inMemory() : mode === 'sqlite' ? inSqlite() : undefined;

function send(response: ServerResponse, head: string, json: Buffer, tail: string): void {
  const parts = [Buffer.from(head), json, Buffer.from(tail)];
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': length });
  if (length <= CHUNK) return void response.end(Buffer.concat(parts));
  const chunks = function* () {
    yield parts[0]!;
    for (let at = 0; at < json.length; at += CHUNK) yield json.subarray(at, at + CHUNK);
    yield parts[2]!;
  };
  Readable.from(chunks()).pipe(response);
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', `http://${request.headers.host}`);
  const limit = Number(url.searchParams.get('limit') ?? 2000);
  const offset = Number(url.searchParams.get('offset') ?? 0);
  if (url.pathname !== '/v1/reporting' || (limit === 0 && !tenancy)) {
    response.writeHead(404).end();
    return;
  }
  const tenant = tenancy?.tenantOf(request.headers['x-api-key'] as string | undefined);
  if (tenancy && !tenant) {
    response.writeHead(401, { 'Content-Type': 'application/problem+json' }).end('{"status":401,"title":"Unauthorized"}');
    return;
  }
  if (tenancy && limit === 0) {
    response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(`{"count":${tenancy.count(tenant!.tenantId)},"data":[]}`);
    return;
  }
  const { count, json, more } = (pageOf ?? tenancy!.pageOf(tenant!.tenantId, tenant!.emptyFragment))(offset, limit);
  const next = more ? `,"next":${JSON.stringify(`http://${request.headers.host}/v1/reporting?limit=${limit}&offset=${offset + count}`)}` : '';
  send(response, `{"count":${count},"data":[`, json, `]${next}}`);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
