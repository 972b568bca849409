/**
 * `make bench-profile SCENARIO=reporting-first CONNECTIONS=8` (or `node --import tsx
 * bench/profile.ts KIND CONNECTIONS`): one scenario of the suite against a server started with
 * `node --cpu-prof`, then where the server's time went, by layer and by function, leaving out
 * start-up and warm-up. BENCH_SECONDS (default 10) sets the length; the stores and other
 * settings are the suite's (config.ts). Prints the summary and writes it to bench/results/.
 * BENCH_PROFILE_BARE=statement (or memory, sqlite) profiles that ruler of bareServer.ts instead
 * of `serve`, for a side-by-side reading of the two profiles. BENCH_PROFILE_DB=URL serves that
 * database instead of the read store (the same records, seeded as bench/versus.ts says), to see
 * where the event loop's time goes on PostgreSQL (the database's own time is not in the profile).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { bulkBodies } from './bulkStore.js';
import { benchConfig } from './config.js';
import { formatSummary, summarizeProfile, type CpuProfile } from './cpuProfile.js';
import { runScenario, type Target } from './load.js';
import { allScenarios, type ScenarioKind } from './scenarios.js';
import { startServerProcess } from './serverProcess.js';
import { prepareBulkRunStore, prepareReadStore } from './stores.js';

const [kind = 'reporting-first', connectionsArgument = '8'] = process.argv.slice(2);
const config = { ...benchConfig(), seconds: Number(process.env.BENCH_SECONDS ?? 10) };
const connections = Number(connectionsArgument);

async function main(): Promise<void> {
  const isBulk = kind === 'bulk-put';
  const database = process.env.BENCH_PROFILE_DB;
  const store = database ? { dbPath: database, key: keyIn(database) } : isBulk ? await prepareBulkRunStore(config) : prepareReadStore(config);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const profileDir = `${config.workDir}/profiles/${stamp}`;
  const spawnedAt = Date.now();
  const bare = process.env.BENCH_PROFILE_BARE as 'statement' | 'key-in-memory' | 'memory' | 'sqlite' | undefined;
  const server = await startServerProcess(store.dbPath, {
    bare,
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
    serveArgs: ['--max-concurrent', String(config.maxConcurrent)],
  });
  const target: Target = { server, key: store.key };
  let skipMs: number;
  try {
    const scenarios = allScenarios({
      config: { ...config, connections: [connections] },
      deepNextPath: `/v1/reporting?limit=${config.limit}&offset=${config.records - config.limit}`,
      bulkBodies: isBulk ? bulkBodies(64, config.bulkItems, (store as Awaited<ReturnType<typeof prepareBulkRunStore>>).users) : [],
    });
    const scenario = scenarios.find((candidate) => candidate.kind === (kind as ScenarioKind));
    if (!scenario) throw new Error(`no scenario ${kind}; one of ${[...new Set(scenarios.map((s) => s.kind))].join(', ')}`);
    await runScenario(scenario, target, 1);
    skipMs = Date.now() - spawnedAt;
    const sample = await runScenario(scenario, target, config.seconds);
    console.log(`${scenario.title} @ ${connections}: ${sample.requestsPerSecond.toFixed(1)} req/s, p50 ${sample.p50} ms, p99 ${sample.p99} ms`);
  } finally {
    await server.stop();
  }
  const file = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile')).sort()[0];
  if (!file) throw new Error(`no profile written to ${profileDir}`);
  const profile = JSON.parse(readFileSync(`${profileDir}/${file}`, 'utf8')) as CpuProfile;
  const size = database ? database : isBulk ? `${config.attributions} attributions` : `${config.records} reporting records`;
  const summary = `${kind} @ ${connections} connections, ${size}, ${config.seconds} s\n\n${formatSummary(summarizeProfile(profile, 30, skipMs))}`;
  console.log(`\n${summary}\n\nprofile: ${profileDir}/${file}`);
  mkdirSync(config.resultsDir, { recursive: true });
  writeFileSync(`${config.resultsDir}/profile-${bare ? `bare-${bare}-` : ''}${kind}-${connections}-${stamp}.md`, `${summary}\n`);
}

/** A new key of the tenant `bench` in `database`. */
function keyIn(database: string): string {
  return execFileSync(process.execPath, [config.serverBin, 'keys', 'create', '--db', database, '--tenant', 'bench'], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
}

await main();
