/**
 * Soak: a long run of mixed load against one `compdata serve`, to see that nothing grows or
 * slows with time. Every minute: the server's resident memory, its open file descriptors, the
 * database's size, and the p50 / p99 / max of the minute's responses.
 *
 *   node --import tsx bench/soak.ts [--minutes 30] [--rate 100] [--connections 8]
 *
 * The load, at `--rate` requests a second in all over `--connections` connections (autocannon):
 * 55% `limit=100` reporting pages at random offsets, 10% `limit=2000` pages, 20% read-backs
 * (`/v1/users/groups` and `/v1/users/managers` of a random user), 15% bulk PUTs of 20 items.
 * Meanwhile `compdata import --replace` loads the store's tenant, exported once at the start,
 * into a second tenant, again and again with a pause of 20 s: it holds the write lock while it
 * commits, as an operator's import would. The store is the bulk-PUT store of the suite (2001 users,
 * 100,045 attributions, 24,012 reporting records), copied afresh. The server runs with
 * `--metrics`; the scrape at the end gives the writes refused for the lock.
 *
 * Results: `bench/results/soak-<time>.md` and `.json`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { bulkBodies } from './bulkStore.js';
import { benchConfig } from './config.js';
import { startServerProcess, type ServerProcess } from './serverProcess.js';
import { prepareBulkRunStore } from './stores.js';

interface SoakOptions {
  minutes: number;
  rate: number;
  connections: number;
}

interface MinuteRow {
  minute: number;
  requests: number;
  /** Responses by status other than 200. */
  other: Record<string, number>;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** p99 of the reads alone (pages and read-backs), and of the bulk PUTs alone. */
  readP99Ms: number;
  putP99Ms: number;
  rssMiB: number;
  anonMiB: number;
  /** V8's heap in use and the memory outside it (Buffers), from the server's /metrics. */
  heapUsedMiB: number;
  externalMiB: number;
  openFds: number;
  dbMiB: number;
  serverCpuSeconds: number;
  importsDone: number;
}

function optionsFrom(argv: readonly string[]): SoakOptions {
  const options: SoakOptions = { minutes: 30, rate: 100, connections: 8 };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]!.replace(/^--/, '') as keyof SoakOptions;
    const value = Number(argv[i + 1]);
    if (!(name in options) || !(value > 0)) throw new Error(`usage: soak.ts [--minutes N] [--rate REQ_PER_S] [--connections N]; not ${argv[i]} ${argv[i + 1]}`);
    options[name] = value;
  }
  return options;
}

const percentile = (sorted: Float64Array, p: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
const fileMiB = (path: string) => {
  try {
    return statSync(path).size / 2 ** 20;
  } catch {
    return 0;
  }
};

/** `compdata` as a child process; resolves with its exit code. */
function compdata(args: readonly string[]): Promise<number | null> {
  const child = spawn(process.execPath, ['bin/compdata.js', ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

type Kind = 'read' | 'put';

/** The mixed requests, drawn with a fixed seed. */
function mixedRequests(key: string, users: number, records: number): autocannon.Request {
  let state = 4242;
  const random = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  const bodies = bulkBodies(64, 20, users);
  let nextBody = 0;
  return {
    // The context is the connection's: it names the kind of the request in flight on it (one at a time).
    setupRequest: (request, context) => {
      const draw = random(100);
      (context as { kind?: Kind }).kind = draw < 85 ? 'read' : 'put';
      const user = `user${random(users)}@bench.example`;
      const headers = { 'X-API-Key': key };
      if (draw < 55) return { ...request, method: 'GET', headers, path: `/v1/reporting?limit=100&offset=${random(records - 100)}` };
      if (draw < 65) return { ...request, method: 'GET', headers, path: `/v1/reporting?limit=2000&offset=${random(records - 2000)}` };
      if (draw < 75) return { ...request, method: 'GET', headers, path: `/v1/users/groups?user=${encodeURIComponent(user)}` };
      if (draw < 85) return { ...request, method: 'GET', headers, path: `/v1/users/managers?user=${encodeURIComponent(user)}` };
      const body = bodies[(nextBody = (nextBody + 1) % bodies.length)]!;
      return { ...request, method: 'PUT', path: '/v1/users/groups/bulk', headers: { ...headers, 'Content-Type': 'application/json' }, body };
    },
  };
}

/** Imports the exported tenant into another one, again and again, until `stopped`. */
async function importLoop(dbPath: string, file: string, stopped: () => boolean, done: (ok: boolean) => void): Promise<void> {
  while (!stopped()) {
    const code = await compdata(['import', '--db', dbPath, '--tenant', 'soak-import', '--replace', file]);
    done(code === 0);
    for (let waited = 0; waited < 20 && !stopped(); waited += 1) await sleep(1000);
  }
}

function linearSlope(points: readonly [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxy / sxx;
}

/** A series without labels from the server's /metrics. */
async function scraped(server: ServerProcess, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

async function main(): Promise<void> {
  const options = optionsFrom(process.argv.slice(2));
  const config = { ...benchConfig(), attributions: 100_000 };
  const store = await prepareBulkRunStore(config, 'soak');
  const users = 2001;
  const records = users * 12;
  const exportFile = `${config.workDir}/soak-export.json`;
  if ((await compdata(['export', '--db', store.dbPath, '--tenant', 'bench', exportFile])) !== 0) throw new Error('export failed');

  const server = await startServerProcess(store.dbPath, { serveArgs: ['--max-concurrent', '256', '--metrics'] });
  console.log(`soak: ${options.minutes} min at ${options.rate} req/s over ${options.connections} connections against ${server.url} (pid ${server.pid})`);
  const newMinute = () => ({ times: [] as number[], byKind: { read: [] as number[], put: [] as number[] }, other: {} as Record<string, number>, errors: 0, imports: 0 });
  let minute = newMinute();
  const rows: MinuteRow[] = [];
  let importsFailed = 0;
  let stopping = false;
  const imports = importLoop(store.dbPath, exportFile, () => stopping, (ok) => {
    minute.imports += 1;
    if (!ok) importsFailed += 1;
  });

  let cpuBefore = server.cpuSeconds();
  const sample = async (): Promise<void> => {
    const heapUsed = (await scraped(server, 'nodejs_heap_size_used_bytes')) ?? 0;
    const external = (await scraped(server, 'nodejs_external_memory_bytes')) ?? 0;
    const sorted = Float64Array.from(minute.times).sort();
    const memory = server.memory();
    const cpu = server.cpuSeconds();
    const row: MinuteRow = {
      minute: rows.length + 1,
      requests: sorted.length,
      other: minute.other,
      errors: minute.errors,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted.at(-1) ?? 0,
      readP99Ms: percentile(Float64Array.from(minute.byKind.read).sort(), 99),
      putP99Ms: percentile(Float64Array.from(minute.byKind.put).sort(), 99),
      rssMiB: memory.rssMiB,
      anonMiB: memory.anonRssMiB,
      heapUsedMiB: heapUsed / 2 ** 20,
      externalMiB: external / 2 ** 20,
      openFds: readdirSync(`/proc/${server.pid}/fd`).length,
      dbMiB: fileMiB(store.dbPath) + fileMiB(`${store.dbPath}-wal`),
      serverCpuSeconds: cpu - cpuBefore,
      importsDone: minute.imports,
    };
    cpuBefore = cpu;
    rows.push(row);
    minute = newMinute();
    console.log(
      `min ${row.minute}: ${row.requests} req, p50 ${row.p50Ms.toFixed(1)} ms, p99 ${row.p99Ms.toFixed(1)} ms (reads ${row.readP99Ms.toFixed(1)}, PUTs ${row.putP99Ms.toFixed(1)}), max ${row.maxMs.toFixed(0)} ms, ` +
        `RSS ${row.rssMiB.toFixed(1)} MiB (anon ${row.anonMiB.toFixed(1)}, heap ${row.heapUsedMiB.toFixed(1)}, external ${row.externalMiB.toFixed(1)}), fds ${row.openFds}, db ${row.dbMiB.toFixed(1)} MiB, ` +
        `imports ${row.importsDone}, other ${JSON.stringify(row.other)}, errors ${row.errors}`,
    );
  };

  const started = new Date();
  const every = setInterval(() => void sample(), 60_000);
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url: server.url,
        connections: options.connections,
        overallRate: options.rate,
        duration: options.minutes * 60,
        requests: [mixedRequests(store.key, users, records)],
      },
      (error) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve()),
    );
    instance.on('response', (client, status: number, _bytes, responseTime: number) => {
      minute.times.push(responseTime);
      const kind = (client as unknown as { requestIterator: { context: { kind?: Kind } } }).requestIterator.context.kind;
      if (kind) minute.byKind[kind].push(responseTime);
      if (status !== 200) minute.other[status] = (minute.other[status] ?? 0) + 1;
    });
    instance.on('reqError', () => (minute.errors += 1));
  });
  clearInterval(every);
  if (minute.times.length > 0 && rows.length < options.minutes) await sample();
  stopping = true;
  await imports;
  const refusedForLock = await scraped(server, 'compdata_write_lock_timeouts_total');
  await server.stop();

  const result = { started: started.toISOString(), options, importsFailed, writeLockTimeouts: refusedForLock, rows };
  const name = `soak-${started.toISOString().replace(/[:.]/g, '-')}`;
  writeFileSync(`${config.resultsDir}/${name}.json`, JSON.stringify(result, null, 2));
  writeFileSync(`${config.resultsDir}/${name}.md`, markdown(result));
  console.log(`results: ${config.resultsDir}/${name}.md`);
}

function markdown(result: { started: string; options: SoakOptions; importsFailed: number; writeLockTimeouts: number | undefined; rows: MinuteRow[] }): string {
  const { rows, options } = result;
  // Minute 1 holds the warm-up (the database's pages mapped in, V8's heap grown): flatness is judged after it.
  const steady = rows.slice(1);
  const slope = (pick: (row: MinuteRow) => number) => linearSlope(steady.map((row) => [row.minute, pick(row)]));
  const range = (pick: (row: MinuteRow) => number) => `${Math.min(...steady.map(pick)).toFixed(1)} to ${Math.max(...steady.map(pick)).toFixed(1)}`;
  const lines = [
    `# Soak, ${result.started}`,
    '',
    `\`node --import tsx bench/soak.ts --minutes ${options.minutes} --rate ${options.rate} --connections ${options.connections}\`: ` +
      'mixed load (55% `limit=100` pages, 10% `limit=2000` pages, 20% read-backs, 15% bulk PUTs of 20 items) against one ' +
      '`compdata serve --metrics` over SQLite, with `compdata import --replace` of a 24,012-record, 100,045-attribution tenant ' +
      'running again and again (20 s pauses). Machine shared with other work (2 cores).',
    '',
    '| minute | requests | p50 ms | p99 ms | reads p99 ms | PUTs p99 ms | max ms | RSS MiB | anon MiB | heap MiB | external MiB | open fds | db MiB | server CPU s | imports | not 200 | errors |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.minute} | ${r.requests} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${r.readP99Ms.toFixed(1)} | ${r.putP99Ms.toFixed(1)} | ${r.maxMs.toFixed(0)} | ${r.rssMiB.toFixed(1)} | ${r.anonMiB.toFixed(1)} | ${r.heapUsedMiB.toFixed(1)} | ${r.externalMiB.toFixed(1)} | ${r.openFds} | ${r.dbMiB.toFixed(1)} | ${r.serverCpuSeconds.toFixed(1)} | ${r.importsDone} | ${Object.entries(r.other).map(([status, n]) => `${status}: ${n}`).join(', ') || '0'} | ${r.errors} |`,
    ),
    '',
    `After minute 1 (least-squares slope per minute; range): RSS ${slope((r) => r.rssMiB).toFixed(2)} MiB/min (${range((r) => r.rssMiB)} MiB); ` +
      `anon ${slope((r) => r.anonMiB).toFixed(2)} MiB/min (${range((r) => r.anonMiB)}); heap in use ${slope((r) => r.heapUsedMiB).toFixed(2)} MiB/min (${range((r) => r.heapUsedMiB)}); ` +
      `external ${slope((r) => r.externalMiB).toFixed(2)} MiB/min (${range((r) => r.externalMiB)}); open fds ${slope((r) => r.openFds).toFixed(2)}/min (${range((r) => r.openFds)}); ` +
      `p99 ${slope((r) => r.p99Ms).toFixed(2)} ms/min (${range((r) => r.p99Ms)} ms); ` +
      `reads' p99 ${slope((r) => r.readP99Ms).toFixed(2)} ms/min (${range((r) => r.readP99Ms)} ms); PUTs' p99 ${slope((r) => r.putP99Ms).toFixed(2)} ms/min (${range((r) => r.putP99Ms)} ms).`,
    '',
    `Imports that failed: ${result.importsFailed}. Writes answered 503 for the write lock (server's /metrics): ${result.writeLockTimeouts ?? 'unknown'}.`,
    '',
  ];
  return lines.join('\n');
}

await main();
