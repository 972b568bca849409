/**
 * Where a server's CPU per request goes, by thread: `node --import tsx bench/serverThreads.ts
 * KIND[@CONNECTIONS] [DIR]` (default `bulk-put@1`, this checkout) runs one scenario of the suite
 * against `DIR/bin/compdata.js serve` for BENCH_SECONDS (default 10) after a warm-up, and splits
 * the server's CPU time per request (from /proc/PID/task/TID/stat) between the event loop, the
 * SQLite writer thread (nice 5), the checkpoint thread (nice 10), V8's helper threads (garbage
 * collection, compilation) and the rest. The CPU profile of `profile.ts` sees the event loop
 * only; this is the whole process. Prints the table and writes bench/results/threads-<time>.md.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { bulkBodies } from './bulkStore.js';
import { benchConfig } from './config.js';
import { runScenario } from './load.js';
import { allScenarios } from './scenarios.js';
import { startServerProcess } from './serverProcess.js';
import { prepareBulkRunStore, prepareReadStore } from './stores.js';

const [wanted = 'bulk-put@1', dir = '.'] = process.argv.slice(2);
const [kind, connectionsText = '1'] = wanted.split('@');
const config = { ...benchConfig(), seconds: Number(process.env.BENCH_SECONDS ?? 10), connections: [Number(connectionsText)] };

/** CPU milliseconds so far of each thread of `pid`, by the name of its part. */
function threadCpuMs(pid: number, mainTid: number): Map<string, number> {
  const parts = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // Fields after the name, from the third: utime (14th) at 11, stime at 12, nice (19th) at 16; in ticks of 10 ms.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const nice = Number(fields[16]);
    const part =
      Number(tid) === mainTid ? 'event loop' : nice === 5 ? 'SQLite writer thread' : nice === 10 ? 'checkpoint thread' : name.startsWith('V8') ? 'V8 helper threads' : `other (${name})`;
    parts.set(part, (parts.get(part) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return parts;
}

async function main(): Promise<void> {
  const isBulk = kind!.startsWith('bulk-');
  const bulk = isBulk ? await prepareBulkRunStore(config) : undefined;
  const store = bulk ?? prepareReadStore(config);
  const scenario = allScenarios({
    config,
    deepNextPath: `/v1/reporting?limit=${config.limit}&offset=${config.records - config.limit}`,
    bulkBodies: bulk ? bulkBodies(64, config.bulkItems, bulk.users) : [],
    tenantBulkBodies: [],
  }).find((candidate) => candidate.kind === kind && candidate.connections === config.connections[0]);
  if (!scenario) throw new Error(`no scenario ${wanted}`);
  const server = await startServerProcess(store.dbPath, { bin: `${dir}/bin/compdata.js`, serveArgs: ['--max-concurrent', String(config.maxConcurrent)] });
  try {
    const target = { server, key: store.key, tenantKeys: bulk?.tenantKeys };
    await runScenario(scenario, target, 2);
    const before = threadCpuMs(server.pid, server.pid);
    const sample = await runScenario(scenario, target, config.seconds);
    const after = threadCpuMs(server.pid, server.pid);
    const requests = sample.requestsPerSecond * config.seconds;
    const lines = [
      `${scenario.title} @ ${scenario.connections} connections, ${dir}: ${requests.toFixed(0)} requests in ${config.seconds} s, server CPU ${sample.serverCpuMsPerRequest.toFixed(2)} ms per request`,
      '',
      '| thread | CPU ms per request | share |',
      '|---|---:|---:|',
    ];
    const used = [...after].map(([part, ms]) => [part, ms - (before.get(part) ?? 0)] as const).filter(([, ms]) => ms > 0);
    const total = used.reduce((sum, [, ms]) => sum + ms, 0);
    for (const [part, ms] of used.sort((a, b) => b[1] - a[1])) {
      lines.push(`| ${part} | ${(ms / requests).toFixed(2)} | ${((100 * ms) / total).toFixed(1)}% |`);
    }
    lines.push('', `load average at the end ${loadavg().map((n) => n.toFixed(2)).join(' ')} (CPU time in ticks of 10 ms per thread)`);
    console.log(lines.join('\n'));
    mkdirSync(config.resultsDir, { recursive: true });
    writeFileSync(`${config.resultsDir}/threads-${kind}-${scenario.connections}-${new Date().toISOString().replace(/[:.]/g, '-')}.md`, `${lines.join('\n')}\n`);
  } finally {
    await server.stop();
  }
}

await main();
