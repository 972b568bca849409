/**
 * The suite's results: medians over the rounds, efficiency against the in-process ceiling, the
 * targets of issue 5, and their JSON and markdown forms in bench/results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { CeilingRates } from './ceiling.js';
import type { Sample } from './load.js';
import type { Scenario } from './scenarios.js';
import type { MemoryReading } from './serverProcess.js';
import { median } from './stats.js';

export interface ResultRow extends Sample {
  kind: Scenario['kind'];
  title: string;
  connections: number;
  recordsPerRequest: number;
  depth?: number;
  /** Median in-process records/s of the same reads (read scenarios only). */
  ceilingRecordsPerSecond?: number;
  /** Served records/s ÷ ceiling records/s. */
  efficiency?: number;
  /**
   * The ceiling's time per request ÷ the server's CPU time per request: the efficiency the
   * server would reach with a core to itself (the throughput one also pays for whatever else
   * runs on the machine, the load generator first).
   */
  cpuEfficiency?: number;
  /** Every run's sample, in the order the runs were made (`sequence` counts all runs of the suite). */
  samples: (Sample & { round: number; sequence: number })[];
}

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean;
}

export interface BenchResult {
  startedAt: string;
  totalSeconds: number;
  machine: { cores: number; cpuModel: string; memoryGiB: number; os: string; loadBefore: number[]; loadAfter: number[] };
  node: string;
  commit: string;
  /** Whether the work tree had changes not committed (the figures are then of those). */
  dirty: boolean;
  sizes: { reportingRecords: number; tableRecords: number; attributions: number };
  settings: { rounds: number; seconds: number; connections: number[]; maxConcurrent: number; limit: number; smallLimit: number; bulkItems: number; serverBin: string };
  /** Each server's memory after the warm-up, before the first round. */
  idle: { read: MemoryReading; bulk: MemoryReading };
  ceilings: CeilingRates;
  rows: ResultRow[];
  targets: TargetCheck[];
}

/** Median of every field of the samples of each scenario, with its efficiency. */
export type RunSample = Sample & { round: number; sequence: number };

export function resultRows(scenarios: readonly Scenario[], samples: ReadonlyMap<Scenario, RunSample[]>, ceilings: CeilingRates): ResultRow[] {
  return scenarios.map((scenario) => {
    const list = samples.get(scenario)!;
    const fields = Object.keys(list[0]!).filter((field) => field !== 'round' && field !== 'sequence') as (keyof Sample)[];
    const medians = Object.fromEntries(fields.map((field) => [field, median(list.map((sample) => sample[field]))])) as unknown as Sample;
    const ceiling = scenario.ceiling === undefined ? undefined : ceilings[scenario.ceiling];
    const ceilingMsPerRequest = ceiling === undefined ? undefined : (scenario.recordsPerRequest / ceiling) * 1000;
    return {
      kind: scenario.kind,
      title: scenario.title,
      connections: scenario.connections,
      recordsPerRequest: scenario.recordsPerRequest,
      ...(scenario.depth !== undefined && { depth: scenario.depth }),
      ...medians,
      ...(ceiling !== undefined && {
        ceilingRecordsPerSecond: ceiling,
        efficiency: medians.recordsPerSecond / ceiling,
        cpuEfficiency: ceilingMsPerRequest! / medians.serverCpuMsPerRequest,
      }),
      samples: list,
    };
  });
}

/** Per-field medians of the ceilings measured once per round. */
export function medianCeilings(rounds: readonly CeilingRates[]): CeilingRates {
  const kinds = Object.keys(rounds[0]!) as (keyof CeilingRates)[];
  return Object.fromEntries(kinds.map((kind) => [kind, median(rounds.map((rates) => rates[kind]))])) as CeilingRates;
}

const rowOf = (rows: readonly ResultRow[], kind: ResultRow['kind'], connections: number) =>
  rows.find((row) => row.kind === kind && row.connections === connections);

/** The targets of issue 5, checked on this run's medians. */
export function targetChecks(rows: readonly ResultRow[], idleRead: MemoryReading, connections: readonly number[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const reads2000 = rows.filter((row) => row.efficiency !== undefined && row.kind !== 'reporting-small-random');
  for (const n of connections) {
    const list = reads2000.filter((row) => row.connections === n);
    const range = (values: number[]) => `${Math.min(...values).toFixed(2)} to ${Math.max(...values).toFixed(2)}`;
    const worst = Math.min(...list.map((row) => row.efficiency!));
    checks.push({
      target: `read efficiency >= 0.8, limit=2000, ${n} connections`,
      measured: `${range(list.map((row) => row.efficiency!))} (by CPU time: ${range(list.map((row) => row.cpuEfficiency!))})`,
      met: worst >= 0.8,
    });
    const first = rowOf(rows, 'reporting-first', n);
    const deep = rowOf(rows, 'reporting-deep-offset', n);
    if (first && deep) {
      const ratio = deep.p50 / first.p50;
      checks.push({ target: `deep page p50 <= 1.2 x first page p50, ${n} connections`, measured: `${ms(deep.p50)} / ${ms(first.p50)} ms = ${ratio.toFixed(2)}`, met: ratio <= 1.2 });
    }
  }
  const most = Math.max(...connections);
  const loaded = rows.filter((row) => row.connections === most && !row.kind.startsWith('bulk-'));
  const mb = (mib: number) => `+${(mib * 1.048576).toFixed(0)} MB`;
  const peak = Math.max(...loaded.map((row) => row.peakRssMiB));
  const peakAnon = Math.max(...loaded.map((row) => row.peakAnonMiB));
  const growth = Math.max(...loaded.map((row) => row.peakRssMiB - row.rssBeforeMiB));
  const anonGrowth = Math.max(...loaded.map((row) => row.peakAnonMiB - row.anonBeforeMiB));
  checks.push({
    target: `peak RSS under ${most} connections <= idle RSS + 50 MB (read server)`,
    measured:
      `over the run's start, at most ${mb(growth)} (anonymous ${mb(anonGrowth)}); ` +
      `over the idle server after warm-up: VmHWM ${peak.toFixed(0)} vs ${idleRead.rssMiB.toFixed(0)} MiB, ${mb(peak - idleRead.rssMiB)}; anonymous ${peakAnon.toFixed(0)} vs ${idleRead.anonRssMiB.toFixed(0)} MiB, ${mb(peakAnon - idleRead.anonRssMiB)}`,
    met: Math.max(growth, peak - idleRead.rssMiB) * 1.048576 <= 50,
  });
  const failures = rows.reduce((sum, row) => sum + row.errors + row.non2xx, 0);
  checks.push({ target: '0 errors and 0 non-2xx (medians over all runs)', measured: String(failures), met: failures === 0 });
  for (const n of connections) {
    const bulk = rowOf(rows, 'bulk-put', n);
    if (bulk) checks.push({ target: `bulk PUT p99 <= 25 ms, ${n} connections`, measured: `${ms(bulk.p99)} ms`, met: bulk.p99 <= 25 });
  }
  return checks;
}

const integer = (value: number) => Math.round(value).toLocaleString('en-US');
/** Milliseconds with two significant decimals below 10, one above. */
export const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);

export function markdownReport(result: BenchResult): string {
  const header =
    '| scenario | conns | req/s | records/s | MB/s | p50 ms | p90 ms | p99 ms | errors | non-2xx | peak RSS MiB | peak anon MiB | server CPU ms/req | server cores | autocannon cores | ceiling records/s | efficiency | by CPU time |\n' +
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
  const lines = result.rows.map((row) =>
    [
      row.title,
      row.connections,
      row.requestsPerSecond.toFixed(1),
      row.recordsPerRequest === 0 ? '-' : integer(row.recordsPerSecond),
      row.mbPerSecond.toFixed(1),
      ms(row.p50),
      ms(row.p90),
      ms(row.p99),
      row.errors,
      row.non2xx,
      row.peakRssMiB.toFixed(0),
      row.peakAnonMiB.toFixed(0),
      row.serverCpuMsPerRequest.toFixed(3),
      row.serverCores.toFixed(2),
      row.loadGeneratorCores.toFixed(2),
      row.ceilingRecordsPerSecond === undefined ? '-' : integer(row.ceilingRecordsPerSecond),
      row.efficiency === undefined ? '-' : row.efficiency.toFixed(2),
      row.cpuEfficiency === undefined ? '-' : row.cpuEfficiency.toFixed(2),
    ].join(' | '),
  );
  const targets = result.targets.map((check) => `| ${check.target} | ${check.measured} | ${check.met ? 'met' : 'NOT met'} |`);
  const { machine, sizes, settings, idle } = result;
  return [
    `${header}\n${lines.map((line) => `| ${line} |`).join('\n')}`,
    `| target | measured | |\n|---|---|---|\n${targets.join('\n')}`,
    `Medians of ${settings.rounds} rounds of ${settings.seconds} s per scenario, orders alternating between rounds. ` +
      `${integer(sizes.reportingRecords)} reporting records, ${integer(sizes.tableRecords)} deal records, ${integer(sizes.attributions)} attributions (bulk store). ` +
      `Servers: \`${settings.serverBin} serve --max-concurrent ${settings.maxConcurrent}\` (above the most connections, so no run meets a 503), default log level. ` +
      `Idle after warm-up: read server RSS ${idle.read.rssMiB.toFixed(0)} MiB (anonymous ${idle.read.anonRssMiB.toFixed(0)}), ` +
      `bulk server ${idle.bulk.rssMiB.toFixed(0)} MiB (anonymous ${idle.bulk.anonRssMiB.toFixed(0)}). ` +
      `Peak RSS is VmHWM (restarted per run; counts mmap'd database pages), peak anon is RssAnon sampled every 50 ms. ` +
      `Server CPU is its user + system time per response; cores are CPU seconds per second of the server and of the load generator (this process).`,
    `Commit ${result.commit}${result.dirty ? ' + uncommitted changes' : ''}, node ${result.node}, ${machine.cores} x ${machine.cpuModel}, ${machine.memoryGiB} GiB, ${machine.os}; ` +
      `load average before ${machine.loadBefore.map((n) => n.toFixed(2)).join(' ')}, after ${machine.loadAfter.map((n) => n.toFixed(2)).join(' ')}; ` +
      `${result.startedAt}, ${Math.round(result.totalSeconds)} s in all.`,
  ].join('\n\n');
}

/** Writes `<stamp>.json` and `<stamp>.md` into `dir`; returns the path without extension. */
export function writeResult(dir: string, result: BenchResult, markdown: string): string {
  mkdirSync(dir, { recursive: true });
  const base = `${dir}/suite-${result.startedAt.replace(/[:.]/g, '-')}`;
  writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(`${base}.md`, `${markdown}\n`);
  return base;
}
