/**
 * Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and says where the time went: self time per
 * function and per layer (a package of node_modules, node's internals, our src/, the garbage
 * collector, native code such as SQLite). Used by bench/profile.ts; also runs alone:
 * `node --import tsx bench/cpuProfile.ts FILE.cpuprofile`.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface CostLine {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  layers: CostLine[];
  functions: CostLine[];
}

/** The layer a frame belongs to, from its script's URL. */
export function layerOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native: SQLite, syscalls, builtins)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node internals';
  const source = /\/(src\/[^/]+)\//.exec(url);
  return source ? source[1]! : url;
}

/** Self time per function and layer, of the samples taken `skipMs` or more after the profile started (past start-up). */
export function summarizeProfile(profile: CpuProfile, top = 25, skipMs = 0): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  let elapsedUs = 0;
  let keptUs = 0;
  profile.samples.forEach((id, index) => {
    const deltaUs = profile.timeDeltas[index] ?? 0;
    elapsedUs += deltaUs;
    if (elapsedUs < skipMs * 1000) return;
    keptUs += deltaUs;
    selfUs.set(id, (selfUs.get(id) ?? 0) + deltaUs);
  });
  const layers = new Map<string, number>();
  const functions = new Map<string, number>();
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') idleUs += us;
    const layer = layerOf(url, functionName);
    layers.set(layer, (layers.get(layer) ?? 0) + us);
    const name = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${lineNumber + 1}` : ''}`.trim();
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const totalUs = keptUs;
  const busyUs = totalUs - idleUs;
  const lines = (costs: Map<string, number>) =>
    [...costs]
      .filter(([name]) => name !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: us / busyUs }));
  return { totalMs: totalUs / 1000, idleMs: idleUs / 1000, layers: lines(layers), functions: lines(functions) };
}

export function formatSummary(summary: ProfileSummary): string {
  const table = (title: string, rows: CostLine[]) =>
    `| ${title} | ms | share of busy time |\n|---|---:|---:|\n` +
    rows.map((row) => `| ${row.name.replaceAll('|', '\\|')} | ${row.ms.toFixed(0)} | ${(row.share * 100).toFixed(1)}% |`).join('\n');
  const busy = summary.totalMs - summary.idleMs;
  return (
    `profiled ${summary.totalMs.toFixed(0)} ms, busy ${busy.toFixed(0)} ms (${((busy / summary.totalMs) * 100).toFixed(0)}%)\n\n` +
    `${table('layer (self time)', summary.layers)}\n\n${table('function (self time)', summary.functions)}`
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: cpuProfile.ts FILE.cpuprofile');
  console.log(formatSummary(summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile)));
}
