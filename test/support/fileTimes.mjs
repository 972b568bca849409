/**
 * A node:test reporter that writes how long each test file took, slowest first: from the last
 * event of the file before it to its own last, as the runner received them (with files run one
 * at a time, that is the file's own time, its process start included). Used beside the usual
 * reporter:
 *
 *   node --test --test-reporter=spec --test-reporter-destination=stdout \
 *     --test-reporter=./test/support/fileTimes.mjs --test-reporter-destination=times.txt FILES...
 */
export default async function* fileTimes(source) {
  const seen = new Map();
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
  const rows = [...seen].map(([file, { first, last }]) => [file.replace(root, ''), (last - first) / 1000]).sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, seconds]) => sum + seconds, 0);
  yield `${rows.map(([file, seconds]) => `${seconds.toFixed(1).padStart(7)} s  ${file}`).join('\n')}\n${total.toFixed(1).padStart(7)} s  in all (${rows.length} files)\n`;
}
