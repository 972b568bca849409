/**
 * `make bench-compare A=bench/results/suite-….json B=bench/results/suite-….json` (or
 * `node --import tsx bench/compare.ts A B`): for every scenario and connection count in both
 * files, the ratio B ÷ A of throughput, latency, memory and efficiency. Above 1 is more of it:
 * better for req/s and efficiency, worse for latency and memory.
 */
import { readFileSync } from 'node:fs';
import type { BenchResult, ResultRow } from './report.js';

const FIELDS = ['requestsPerSecond', 'p50', 'p99', 'peakAnonMiB', 'efficiency'] as const satisfies readonly (keyof ResultRow)[];

function load(path: string): BenchResult {
  const result = JSON.parse(readFileSync(path, 'utf8')) as BenchResult;
  if (!Array.isArray(result.rows)) throw new Error(`${path} is not a result of bench/run.ts`);
  return result;
}

const rowKey = (row: ResultRow) => `${row.kind} ${row.depth ?? ""} @ ${row.connections}`;

function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined) return '-';
  if (a === 0) return b === 0 ? '1.00' : 'n/a';
  return (b / a).toFixed(2);
}

export function comparison(a: BenchResult, b: BenchResult): string {
  const before = new Map(a.rows.map((row) => [rowKey(row), row]));
  const lines = b.rows
    .filter((row) => before.has(rowKey(row)))
    .map((row) => {
      const old = before.get(rowKey(row))!;
      const cells = FIELDS.map((field) => ratio(old[field], row[field]));
      return `| ${row.title} | ${row.connections} | ${old.requestsPerSecond.toFixed(1)} -> ${row.requestsPerSecond.toFixed(1)} | ${cells.join(' | ')} |`;
    });
  const describe = (result: BenchResult) =>
    `${result.commit}${result.dirty ? '+' : ''} (${result.startedAt}, load ${result.machine.loadBefore[0]?.toFixed(2)})`;
  return (
    `B ÷ A, A = ${describe(a)}, B = ${describe(b)}\n\n` +
    `| scenario | conns | req/s A -> B | req/s | p50 | p99 | peak anon | efficiency |\n|---|---:|---:|---:|---:|---:|---:|---:|\n` +
    lines.join('\n')
  );
}

const [pathA, pathB] = process.argv.slice(2);
if (!pathA || !pathB) {
  console.error('usage: compare.ts A.json B.json');
  process.exit(2);
}
console.log(comparison(load(pathA), load(pathB)));
