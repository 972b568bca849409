/**
 * The samples of a Prometheus text exposition (format 0.0.4), by series: `name{a="x",b="y"}`
 * with its labels sorted, so that a test can name a series whatever order the labels came in.
 */
export function samplesOf(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels = [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => `${name}="${value}"`).sort();
    samples.set(series(match[1]!, labels), Number(match[3]));
  }
  return samples;
}

/** The key of a series in {@link samplesOf}: `series('x_total', { status: '200' })`. */
export function seriesKey(name: string, labels: Record<string, string> = {}): string {
  return series(name, Object.entries(labels).map(([label, value]) => `${label}="${value}"`).sort());
}

function series(name: string, sortedLabels: readonly string[]): string {
  return sortedLabels.length === 0 ? name : `${name}{${sortedLabels.join(',')}}`;
}
