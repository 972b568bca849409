/**
 * The suite's chart, drawn by Vega-Lite (compiled to Vega, rendered to SVG by a headless
 * `View`): p50 and p99 latency against page depth (limit=2000 pages at 8 connections, from the
 * first page to the last) and against connections (every scenario at 1, 8, 64).
 * `node --import tsx bench/charts.ts RESULT.json` draws it again from a result file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { BenchResult, ResultRow } from './report.js';

interface LatencyPoint {
  scenario: string;
  x: number;
  statistic: 'p50' | 'p99';
  ms: number;
}

const DEPTH_KINDS = new Set<ResultRow['kind']>(['reporting-first', 'reporting-deep-offset', 'reporting-depth']);

function latencyPoints(rows: readonly ResultRow[], x: (row: ResultRow) => number, scenario: (row: ResultRow) => string): LatencyPoint[] {
  return rows.flatMap((row) => [
    { scenario: scenario(row), x: x(row), statistic: 'p50' as const, ms: Math.max(row.p50, 0.05) },
    { scenario: scenario(row), x: x(row), statistic: 'p99' as const, ms: Math.max(row.p99, 0.05) },
  ]);
}

/** One line per scenario and statistic (p99 dashed), latency on a log scale. */
function latencyPanel(title: string, points: LatencyPoint[], xTitle: string, xScale: object): object {
  return {
    title,
    width: 520,
    height: 260,
    data: { values: points },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'x', type: 'quantitative', title: xTitle, scale: xScale },
      y: { field: 'ms', type: 'quantitative', title: 'latency, ms (log)', scale: { type: 'log' } },
      color: { field: 'scenario', type: 'nominal', title: null, legend: { orient: 'right', labelLimit: 360 } },
      strokeDash: { field: 'statistic', type: 'nominal', title: 'statistic', legend: { symbolType: 'stroke', encode: { symbols: { update: { stroke: { value: '#444' }, strokeWidth: { value: 2 } } } } } },
      detail: { field: 'statistic' },
    },
  };
}

export function latencyChartSpec(rows: readonly ResultRow[], depthConnections: number): TopLevelSpec {
  const byDepth = rows.filter((row) => DEPTH_KINDS.has(row.kind) && row.connections === depthConnections);
  const depthPoints = latencyPoints(
    byDepth,
    (row) => row.depth ?? 0,
    () => `reporting, limit=2000, ${depthConnections} connections`,
  );
  const byConnections = rows.filter((row) => row.kind !== 'reporting-depth');
  const connectionPoints = latencyPoints(
    byConnections,
    (row) => row.connections,
    (row) => row.title,
  );
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    config: { font: 'sans-serif' },
    vconcat: [
      latencyPanel('Latency against page depth (offset)', depthPoints, 'offset of the page', { zero: true }),
      latencyPanel('Latency against connections', connectionPoints, 'connections (log)', { type: 'log', base: 2 }),
    ],
    resolve: { scale: { color: 'independent' } },
  } as unknown as TopLevelSpec;
}

/** Renders the chart of `rows` to an SVG file. */
export async function writeLatencyChart(path: string, rows: readonly ResultRow[], depthConnections: number): Promise<void> {
  const view = new View(parse(compile(latencyChartSpec(rows, depthConnections)).spec), { renderer: 'none' });
  writeFileSync(path, await view.toSVG());
  view.finalize();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (!file?.endsWith('.json')) throw new Error('usage: charts.ts RESULT.json');
  const { rows } = JSON.parse(readFileSync(file, 'utf8')) as BenchResult;
  const depthConnections = rows.find((row) => row.kind === 'reporting-depth')?.connections ?? 8;
  await writeLatencyChart(file.replace(/\.json$/, '-latency.svg'), rows, depthConnections);
}
