/**
 * Import and export of a large dataset, measured through the CLI as users run it: `compdata
 * export` and `compdata import` each in their own process (`node bin/compdata.js`, so run `npm
 * run build` first), timed from outside, their peak resident set read as they exit
 * (bench/peakRss.mjs). Each size (BENCH_SIZES, default 100000,1000000 reporting records; the
 * seed adds a fifth as many deal records) is seeded once into bench/.work/, exported, imported
 * into a fresh file, and exported again: the two exports must be byte-identical. Two sizes show
 * whether memory depends on the size. Results go to bench/results/.
 *
 * With `BENCH_POSTGRES` set to a PostgreSQL server's URL (its `postgres` database, as a user who
 * may create databases), the same file is also imported into a fresh database on that server
 * and exported from it: a row per engine, and the PostgreSQL export must be byte-identical too.
 *
 *   npm run build && node --import tsx bench/importExport.ts
 *   BENCH_SIZES=1000000 BENCH_POSTGRES=postgres://postgres@127.0.0.1:54330/postgres node --import tsx bench/importExport.ts
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import pg from 'pg';

const SIZES = (process.env.BENCH_SIZES ?? '100000,1000000').split(',').map(Number);
const WORK = 'bench/.work';
const POSTGRES = process.env.BENCH_POSTGRES;

interface Run {
  seconds: number;
  peakRssMiB: number;
  stdout: string;
}

/** Runs `compdata <args>` as its own process; fails on a non-zero exit. */
function compdata(args: string[]): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', './bench/peakRss.mjs', 'bin/compdata.js', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      const seconds = (performance.now() - started) / 1000;
      const peak = Number(/peak-rss-kib (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
      if (code !== 0) reject(new Error(`compdata ${args.join(' ')} exited with ${code}: ${stderr}`));
      else resolve({ seconds, peakRssMiB: peak / 1024, stdout });
    });
  });
}

function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

/** A fresh, empty database `name` on the server of `adminUrl`; returns its URL. */
async function freshPostgresDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

interface Row {
  engine: 'sqlite' | 'postgres';
  records: number;
  fileMiB: number;
  seedSeconds?: number;
  export: { seconds: number; elementsPerSecond: number; peakRssMiB: number };
  import: { seconds: number; recordsPerSecond: number; reportingPerSecond: number; elementsPerSecond: number; peakRssMiB: number };
  identical: boolean;
}

async function measure(records: number, engine: Row['engine']): Promise<Row> {
  mkdirSync(WORK, { recursive: true });
  const seeded = `${WORK}/bench-${records}.db`;
  let seedSeconds: number | undefined;
  if (!existsSync(seeded)) {
    seedSeconds = (await compdata(['seed', '--db', seeded, '--tenant', 'bench', '--records', String(records), '--seed', '1'])).seconds;
  }
  const file = `${WORK}/dataset-${records}.json`;
  const again = `${WORK}/dataset-${records}-again.json`;
  const loaded = engine === 'postgres' ? await freshPostgresDatabase(POSTGRES!, `imported_${records}`) : `${WORK}/imported-${records}.db`;
  if (engine === 'sqlite') removeDatabase(loaded);

  const exported = await compdata(['export', '--db', seeded, '--tenant', 'bench', file]);
  const elements = Number(/: (\d+) elements/.exec(exported.stdout)![1]);
  const imported = await compdata(['import', '--db', loaded, '--tenant', 'bench', file]);
  const reporting = Number(/(\d+) reporting records/.exec(imported.stdout)![1]);
  const tableRecords = Number(/tables with (\d+) records/.exec(imported.stdout)![1]);
  await compdata(['export', '--db', loaded, '--tenant', 'bench', again]);
  let identical = true;
  try {
    execFileSync('cmp', ['-s', file, again]);
  } catch {
    identical = false;
  }
  const row: Row = {
    engine,
    records,
    fileMiB: statSync(file).size / 1048576,
    ...(seedSeconds === undefined ? {} : { seedSeconds }),
    export: { seconds: exported.seconds, elementsPerSecond: elements / exported.seconds, peakRssMiB: exported.peakRssMiB },
    import: {
      seconds: imported.seconds,
      recordsPerSecond: (reporting + tableRecords) / imported.seconds,
      reportingPerSecond: reporting / imported.seconds,
      elementsPerSecond: elements / imported.seconds,
      peakRssMiB: imported.peakRssMiB,
    },
    identical,
  };
  rmSync(again, { force: true });
  if (engine === 'sqlite') removeDatabase(loaded);
  return row;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  for (const records of SIZES) {
    for (const engine of POSTGRES ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)) {
      const row = await measure(records, engine);
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const header =
    '| engine | reporting records | file MiB | import s | import records/s (reporting + table) | import reporting/s | import peak RSS MiB | export s | export elements/s | export peak RSS MiB | round trip |\n' +
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|';
  const lines = rows.map(
    (r) =>
      `| ${r.engine} | ${r.records} | ${r.fileMiB.toFixed(0)} | ${r.import.seconds.toFixed(1)} | ${Math.round(r.import.recordsPerSecond)} | ` +
      `${Math.round(r.import.reportingPerSecond)} | ${r.import.peakRssMiB.toFixed(0)} | ${r.export.seconds.toFixed(1)} | ` +
      `${Math.round(r.export.elementsPerSecond)} | ${r.export.peakRssMiB.toFixed(0)} | ${r.identical ? 'byte-identical' : 'DIFFERENT'} |`,
  );
  const seeds = rows.filter((r) => r.seedSeconds !== undefined).map((r) => `seed of ${r.records}: ${r.seedSeconds!.toFixed(1)} s`);
  const summary =
    `${header}\n${lines.join('\n')}\n\n` +
    `Times are wall clock of the whole command (start, read, write, commit, close); peak RSS is getrusage's maxrss.\n` +
    `${seeds.length > 0 ? `${seeds.join('; ')}\n` : ''}` +
    `commit ${commit}, node ${process.version}, ${cpus().length} cores`;
  console.log(`\n${summary}`);
  mkdirSync('bench/results', { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  writeFileSync(`bench/results/import-export-${stamp}.md`, `${summary}\n`);
  writeFileSync(`bench/results/import-export-${stamp}.json`, `${JSON.stringify({ commit, node: process.version, cores: cpus().length, rows }, null, 2)}\n`);
  if (rows.some((r) => !r.identical)) process.exitCode = 1;
}

await main();
