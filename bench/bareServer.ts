/**
 * Rulers for the read path, not products: a plain node:http server answering
 * `GET /v1/reporting?limit=&offset=` with the same bytes as `compdata serve` (the same records,
 * the same envelope and `next`), over the bench's read store. No key check, no routing, no
 * validation, no logging. Two ways of finding a page:
 * - `memory`: every record's JSON held in one Buffer at start (no database work per request);
 * - `sqlite`: the records' complete JSON copied at start into a table of their own
 *   (bench/.work/bare-<N>.db), and each page joined by SQLite over the key range
 *   (`group_concat` of the stored JSON, one BLOB), better-sqlite3 on the event loop.
 *
 *   node --import tsx bench/bareServer.ts memory|sqlite STORE_DB
 * The first line of stdout is `listening on <url>`, as for serve; SIGTERM ends it.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

const [mode, storePath] = process.argv.slice(2);
if ((mode !== 'memory' && mode !== 'sqlite') || !storePath) {
  console.error('usage: bareServer.ts memory|sqlite STORE_DB');
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

const pageOf = mode === 'memory' ? inMemory() : inSqlite();

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
  if (url.pathname !== '/v1/reporting' || limit === 0) {
    response.writeHead(404).end();
    return;
  }
  const { count, json, more } = pageOf(offset, limit);
  const next = more ? `,"next":${JSON.stringify(`http://${request.headers.host}/v1/reporting?limit=${limit}&offset=${offset + count}`)}` : '';
  send(response, `{"count":${count},"data":[`, json, `]${next}}`);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
