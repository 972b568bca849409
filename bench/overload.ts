/**
 * A server past its limit of requests at once, for one or more builds in turn:
 * `node --import tsx bench/overload.ts [DIR ...]` (directories as for versus.ts; default this
 * checkout). Over the read store of BENCH_RECORDS (default here 100,000), one `compdata serve`
 * with its default `--max-concurrent` (64) per build, CONNECTIONS (default 500) connections
 * read `limit=2000` pages for SECONDS (default 20), while `GET /healthz` is probed every 100 ms
 * on a kept-alive connection of its own and, beside it, on a new connection each time. Shows the pages' status mix, errors and timeouts, the server's
 * peak RSS and anonymous RSS, the probes' statuses and p50/p99/max, and whether a normal page
 * answers 200 right after. Writes bench/results/overload-<time>.md. HEALTH_PORT=1 gives each
 * server `--health-port` (a free port) and probes there.
 *
 * Also the server's accept queue (connections the kernel has set up that the server has not
 * accepted yet, sampled every 50 ms): Node accepts one connection per turn of its event loop,
 * and a turn is long when hundreds of requests are answered in it, so a probe on a new
 * connection waits behind every connection queued before it. Shown as its largest length and
 * the time it held more than 10.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { benchConfig } from './config.js';
import { timedRun } from './load.js';
import { READ_PATH } from './scenarios.js';
import { startServerProcess, type ServerProcess } from './serverProcess.js';
import { percentile } from './stats.js';
import { prepareReadStore } from './stores.js';

const builds = process.argv.slice(2);
if (builds.length === 0) builds.push('.');
process.env.BENCH_RECORDS ??= '100000';
const config = benchConfig();
const seconds = Number(process.env.SECONDS ?? 20);
const connections = Number(process.env.CONNECTIONS ?? 500);
/** HEALTH_PORT=1: each server also gets `--health-port` (a free port), and the probes go there. */
const healthPort = process.env.HEALTH_PORT === '1';
const PROBE_EVERY_MS = 100;

interface Outcome {
  build: string;
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  peakRssMiB: number;
  peakAnonMiB: number;
  rssBeforeMiB: number;
  acceptQueue: { max: number; secondsOver10: number };
  probes: Record<'keep' | 'new', { statuses: Record<string, number>; p50: number; p99: number; max: number }>;
  after: number;
}

/**
 * `GET /healthz` every PROBE_EVERY_MS until `stop()`, each answer's status and time: on one
 * kept-alive connection (`keep`), or on a new connection each time (`new`, as an orchestrator's
 * HTTP probe does). In a process of its own: the load generator's process is too busy to
 * probe on time (a worker thread of it saw 10-second answers where a process of its own saw
 * answers within 1.6 s).
 */
function probeHealth(url: string, connection: 'keep' | 'new'): { stop(): Promise<ProbeRecord> } {
  const child = spawn(process.execPath, ['-e', PROBE_SOURCE, url, String(PROBE_EVERY_MS), connection], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
  const exited = once(child, 'exit');
  return {
    stop: async () => {
      child.stdin.end(); // the probe's signal to stop and report
      await exited;
      return JSON.parse(output) as ProbeRecord;
    },
  };
}

interface ProbeRecord {
  statuses: Record<string, number>;
  times: number[];
}

const PROBE_SOURCE = `
const http = require('node:http');
const [url, everyMs, connection] = process.argv.slice(1);
const agent = connection === 'keep' ? new http.Agent({ keepAlive: true, maxSockets: 1 }) : false;
const statuses = {};
const times = [];
let running = true;
process.stdin.on('end', () => (running = false)).resume();
const probe = () =>
  new Promise((resolve) => {
    const request = http.get(url + '/healthz', { agent }, (response) => {
      response.resume();
      response.on('end', () => resolve(String(response.statusCode)));
    });
    request.setTimeout(10000, () => {
      request.destroy();
      resolve('timeout');
    });
    request.on('error', () => resolve('error'));
  });
(async () => {
  while (running) {
    const started = performance.now();
    const status = await probe();
    statuses[status] = (statuses[status] || 0) + 1;
    times.push(performance.now() - started);
    const wait = started + Number(everyMs) - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  process.stdout.write(JSON.stringify({ statuses, times }));
  process.exit(0);
})();
`;

async function overload(build: string, dbPath: string, key: string): Promise<Outcome> {
  const port = healthPort ? await freePort() : undefined;
  const server: ServerProcess = await startServerProcess(dbPath, {
    bin: `${build}/bin/compdata.js`,
    ...(port !== undefined && { serveArgs: ['--health-port', String(port)] }),
  });
  const probeUrl = port === undefined ? server.url : `http://127.0.0.1:${port}`;
  try {
    const page = `${server.url}${READ_PATH}?limit=${config.limit}&offset=0`;
    await fetch(page, { headers: { 'X-API-Key': key } }).then((response) => response.arrayBuffer());
    server.resetPeak();
    const before = server.memory();
    let peakAnonMiB = before.anonRssMiB;
    const acceptQueue = { max: 0, secondsOver10: 0 };
    const port = Number(new URL(server.url).port);
    const sampler = setInterval(() => {
      peakAnonMiB = Math.max(peakAnonMiB, server.memory().anonRssMiB);
      const waiting = acceptQueueOf(port);
      acceptQueue.max = Math.max(acceptQueue.max, waiting);
      if (waiting > 10) acceptQueue.secondsOver10 += 0.05;
    }, 50);
    const probes = { keep: probeHealth(probeUrl, 'keep'), new: probeHealth(probeUrl, 'new') };
    let run: Awaited<ReturnType<typeof timedRun>>;
    try {
      run = await timedRun({ url: page, connections, duration: seconds, timeout: 30, headers: { 'X-API-Key': key } });
    } finally {
      clearInterval(sampler);
    }
    const probed = { keep: await probes.keep.stop(), new: await probes.new.stop() };
    const after = await fetch(page, { headers: { 'X-API-Key': key } });
    await after.arrayBuffer();
    const statuses = Object.fromEntries(Object.entries(run.result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count ?? 0]));
    const round = (ms: number) => Math.round(ms * 10) / 10;
    const summary = ({ statuses: probeStatuses, times: list }: ProbeRecord) => {
      const times = Float64Array.from(list).sort();
      return { statuses: probeStatuses, p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), max: round(times.at(-1) ?? NaN) };
    };
    return {
      build,
      statuses,
      errors: run.result.errors,
      timeouts: run.result.timeouts,
      peakRssMiB: server.memory().peakRssMiB,
      peakAnonMiB,
      rssBeforeMiB: before.rssMiB,
      acceptQueue,
      probes: { keep: summary(probed.keep), new: summary(probed.new) },
      after: after.status,
    };
  } finally {
    await server.stop();
  }
}

/**
 * Connections waiting to be accepted on the listening socket of `port` on 127.0.0.1: the
 * receive queue of a socket in state LISTEN (0A) of /proc/net/tcp is its accept queue.
 */
function acceptQueueOf(port: number): number {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n')) {
    const [, address, , state, queues] = line.trim().split(/\s+/);
    if (address === local && state === '0A') return parseInt(queues!.split(':')[1]!, 16);
  }
  return 0;
}

/** A TCP port of 127.0.0.1 that nothing listens on now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}

async function main(): Promise<void> {
  const store = prepareReadStore(config);
  const outcomes: Outcome[] = [];
  for (const build of builds) outcomes.push(await overload(build, store.dbPath, store.key));
  const mix = (statuses: Record<string, number>) => Object.entries(statuses).map(([status, count]) => `${count} × ${status}`).join(', ');
  const lines = [
    `${connections} connections reading limit=${config.limit} pages for ${seconds} s, ${config.records} records, serve's default --max-concurrent; GET /healthz every ${PROBE_EVERY_MS} ms beside them${healthPort ? ', on the health port (--health-port)' : ''}`,
    '',
    '| build | pages: statuses | errors / timeouts | RSS before → peak MiB | peak anon MiB | /healthz, one kept-alive connection: statuses | p50 / p99 / max ms | /healthz, a new connection each: statuses | p50 / p99 / max ms | accept queue: max / seconds over 10 | a page right after |',
    '|---|---|---:|---:|---:|---|---:|---|---:|---:|---:|',
    ...outcomes.map(
      (o) =>
        `| ${o.build} | ${mix(o.statuses)} | ${o.errors} / ${o.timeouts} | ${o.rssBeforeMiB.toFixed(0)} → ${o.peakRssMiB.toFixed(0)} | ${o.peakAnonMiB.toFixed(0)} | ` +
        `${mix(o.probes.keep.statuses)} | ${o.probes.keep.p50} / ${o.probes.keep.p99} / ${o.probes.keep.max} | ` +
        `${mix(o.probes.new.statuses)} | ${o.probes.new.p50} / ${o.probes.new.p99} / ${o.probes.new.max} | ${o.acceptQueue.max} / ${o.acceptQueue.secondsOver10.toFixed(1)} | ${o.after} |`,
    ),
    '',
    `load average at the end ${loadavg().map((n) => n.toFixed(2)).join(' ')}`,
  ];
  console.log(lines.join('\n'));
  mkdirSync(config.resultsDir, { recursive: true });
  writeFileSync(`${config.resultsDir}/overload-${new Date().toISOString().replace(/[:.]/g, '-')}.md`, `${lines.join('\n')}\n`);
}

await main();
