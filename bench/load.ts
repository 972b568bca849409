/**
 * One autocannon run of one scenario against a server process, with the server's memory
 * watched meanwhile: its peak RSS is restarted before the run and read after it, its anonymous
 * RSS is sampled every 50 ms. Latency percentiles come from every response's own time, in
 * fractions of a millisecond (autocannon's histogram keeps whole milliseconds, which hides the
 * difference between a 3 ms and a 3.9 ms page).
 */
import autocannon from 'autocannon';
import type { Scenario } from './scenarios.js';
import type { ServerProcess } from './serverProcess.js';
import { percentile } from './stats.js';

/** A server and the key of its store's tenant (and of the bulk store's other tenants). */
export interface Target {
  server: ServerProcess;
  key: string;
  tenantKeys?: readonly string[];
}

/** What one run measured. */
export interface Sample {
  requestsPerSecond: number;
  recordsPerSecond: number;
  mbPerSecond: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** The server's CPU time (user + system) per response, in ms: what a request costs it, whatever else the machine runs. */
  serverCpuMsPerRequest: number;
  /** Cores kept busy, on average, by the server and by this process (autocannon): at 1.0 one is the bottleneck. */
  serverCores: number;
  loadGeneratorCores: number;
  /** The server's RSS as the run started and its peak during the run (VmHWM; counts mmap'd database pages). */
  rssBeforeMiB: number;
  peakRssMiB: number;
  /** The server's anonymous RSS (heap, buffers) as the run started and its highest sample during the run. */
  anonBeforeMiB: number;
  peakAnonMiB: number;
}

const MEMORY_SAMPLE_MS = 50;

/** Runs `scenario` for `seconds`, or for `amount` requests when given. */
export async function runScenario(scenario: Scenario, target: Target, seconds: number, amount?: number): Promise<Sample> {
  const { server } = target;
  server.resetPeak();
  const before = server.memory();
  const cpuBefore = server.cpuSeconds();
  const ownCpuBefore = process.cpuUsage();
  let peakAnonMiB = before.anonRssMiB;
  const sampler = setInterval(() => {
    peakAnonMiB = Math.max(peakAnonMiB, server.memory().anonRssMiB);
  }, MEMORY_SAMPLE_MS);
  let run: { result: autocannon.Result; latencies: Float64Array };
  try {
    run = await timedRun({
      url: server.url,
      connections: scenario.connections,
      duration: seconds,
      ...(amount !== undefined && { amount }),
      headers: { 'X-API-Key': target.key },
      ...scenario.requests(target),
    });
  } finally {
    clearInterval(sampler);
  }
  const { result, latencies } = run;
  const after = server.memory();
  const cpuMs = (server.cpuSeconds() - cpuBefore) * 1000;
  const ownCpu = process.cpuUsage(ownCpuBefore);
  const wallMs = result.duration * 1000;
  const requestsPerSecond = result.requests.total / result.duration;
  const ms = (p: number) => (latencies.length === 0 ? NaN : Math.round(percentile(latencies, p) * 100) / 100);
  return {
    requestsPerSecond,
    recordsPerSecond: requestsPerSecond * scenario.recordsPerRequest,
    mbPerSecond: result.throughput.total / result.duration / 1e6,
    p50: ms(50),
    p90: ms(90),
    p99: ms(99),
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    serverCpuMsPerRequest: cpuMs / Math.max(1, result.requests.total),
    serverCores: cpuMs / wallMs,
    loadGeneratorCores: (ownCpu.user + ownCpu.system) / 1000 / wallMs,
    rssBeforeMiB: before.rssMiB,
    peakRssMiB: after.peakRssMiB,
    anonBeforeMiB: before.anonRssMiB,
    peakAnonMiB: Math.max(peakAnonMiB, after.anonRssMiB),
  };
}

/** autocannon's result, and the time of every response in milliseconds, ascending. */
export function timedRun(options: autocannon.Options): Promise<{ result: autocannon.Result; latencies: Float64Array }> {
  const times: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) => {
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve({ result, latencies: Float64Array.from(times).sort() });
    });
    instance.on('response', (_client, _status, _bytes, responseTime: number) => {
      times.push(responseTime);
    });
  });
}
