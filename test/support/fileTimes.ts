/**
 * A node:test reporter that writes how long each test file took, slowest first: from the last
 * event of the file before it to its own last, as the runner received them (with files run one
 * at a time, that is the file's own time). runTests.ts uses it beside the spec report.
 */
export default async function* fileTimes(source: AsyncIterable<{ type: string; data?: { file?: string } }>): AsyncGenerator<string> {
  const seen = new Map<string, { first: number; last: number }>();
  // A file's time begins where the file before it ended: its process start counts as its own.
  let lastEvent = performance.now();
  for await (const event of source) {
    const file = event.data?.file;
    // Every file is enqueued when the run begins: its time begins with its first other event.
    if (!file || event.type === 'test:enqueue') continue;
    const now = performance.now();
    const times = seen.get(file);
    if (times) times.last = now;
    else seen.set(file, { first: lastEvent, last: now });
    lastEvent = now;
  }
  const root = process.cwd() + '/';
  const rows = [...seen].map(([file, { first, last }]) => [file.replace(root, ''), (last - first) / 1000] as const).sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, seconds]) => sum + seconds, 0);
  yield `${rows.map(([file, seconds]) => `${seconds.toFixed(1).padStart(7)} s  ${file}`).join('\n')}\n${total.toFixed(1).padStart(7)} s  in all (${rows.length} files)\n`;
}
