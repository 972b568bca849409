/**
 * The suite's settings, resolved once from the environment: `make bench` uses the defaults,
 * `make bench-quick` sets BENCH_QUICK=1 (smaller stores, shorter runs, same scenarios).
 *
 * | variable | default | quick | meaning |
 * |---|---:|---:|---|
 * | BENCH_RECORDS | 1,000,000 | 100,000 | reporting records (the seed adds a fifth as many deal records) |
 * | BENCH_ATTRIBUTIONS | 1,000,000 | 100,000 | group and manager attributions of the bulk-PUT store |
 * | BENCH_ROUNDS | 3 | 3 | repetitions of every scenario (medians are reported) |
 * | BENCH_SECONDS | 4 | 1 | length of one autocannon run |
 * | BENCH_CONNECTIONS | 1,8,64 | 1,8,64 | connection counts of every scenario |
 * | BENCH_DEPTHS | 4 | 2 | extra page depths (between the first and the last page) for the depth chart |
 * | BENCH_SERVER_BIN | bin/compdata.js | | the CLI whose `serve` is measured (another build's, to measure it) |
 * | BENCH_ENCODINGS | none | none | `gzip`, `br` or `gzip,br`: adds the first page asked for with that `Accept-Encoding` (records/s; MB/s is bytes on the wire, so compressed against `reporting-first`'s uncompressed) |
 */
export interface BenchConfig {
  quick: boolean;
  records: number;
  attributions: number;
  rounds: number;
  seconds: number;
  connections: number[];
  depthSteps: number;
  /** How long each short warm-up run and each in-process ceiling measurement lasts. */
  warmUpSeconds: number;
  ceilingSeconds: number;
  /** Page size of the large-page scenarios (the API's largest). */
  limit: number;
  /** Page size of the small-page scenario. */
  smallLimit: number;
  /** Items in one bulk PUT. */
  bulkItems: number;
  /** The server's --max-concurrent: above the largest connection count, so no run meets a 503. */
  maxConcurrent: number;
  serverBin: string;
  /** Content codings of the compressed first-page scenarios (none by default). */
  encodings: ('gzip' | 'br')[];
  workDir: string;
  resultsDir: string;
}

function numberFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${raw}`);
  return value;
}

export function benchConfig(): BenchConfig {
  const quick = process.env.BENCH_QUICK === '1';
  const connections = (process.env.BENCH_CONNECTIONS ?? '1,8,64').split(',').map(Number);
  if (connections.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('BENCH_CONNECTIONS: a list like 1,8,64');
  return {
    quick,
    records: numberFrom('BENCH_RECORDS', quick ? 100_000 : 1_000_000),
    attributions: numberFrom('BENCH_ATTRIBUTIONS', quick ? 100_000 : 1_000_000),
    rounds: numberFrom('BENCH_ROUNDS', 3),
    seconds: numberFrom('BENCH_SECONDS', quick ? 1 : 4),
    connections,
    depthSteps: numberFrom('BENCH_DEPTHS', quick ? 2 : 4),
    warmUpSeconds: quick ? 0.5 : 1,
    ceilingSeconds: quick ? 0.3 : 0.6,
    limit: 2000,
    smallLimit: 100,
    bulkItems: 200,
    maxConcurrent: 4 * Math.max(...connections),
    serverBin: process.env.BENCH_SERVER_BIN || 'bin/compdata.js',
    encodings: encodingsFrom(process.env.BENCH_ENCODINGS ?? ''),
    workDir: 'bench/.work',
    resultsDir: 'bench/results',
  };
}

function encodingsFrom(raw: string): ('gzip' | 'br')[] {
  const encodings = raw.split(',').filter((encoding) => encoding !== '');
  if (encodings.some((encoding) => encoding !== 'gzip' && encoding !== 'br')) throw new Error(`BENCH_ENCODINGS: gzip, br or gzip,br, not ${raw}`);
  return encodings as ('gzip' | 'br')[];
}
