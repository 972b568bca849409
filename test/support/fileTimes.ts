import { readFileSync } from 'node:fs';

/**
 * A node:test reporter that writes how long each test file took, slowest first: from the last
 * event of the file before it to its own last, as the runner received them (with files run one
 * at a time, that is the file's own time), and the CPU time spent meanwhile by this process and
 * the processes it started and has reaped (servers, CLI commands). runTests.ts uses it beside the
 * spec report.
 */
export default async function* fileTimes(source: AsyncIterable<{ type: string; data?: { file?: string } }>): AsyncGenerator<string> {
  const seen = new Map<string, { first: number; last: number; cpuFirst: number; cpuLast: number }>();
  // A file's time begins where the file before it ended: its process start counts as its own.
  let lastEvent = performance.now();
  let lastCpu = cpuSeconds();
  for await (const event of source) {
    const file = event.data?.file;
    // Every file is enqueued when the run begins: its time begins with its first other event.
    if (!file || event.type === 'test:enqueue') continue;
    const now = performance.now();
    const cpu = cpuSeconds();
    const times = seen.get(file);
    if (times) Object.assign(times, { last: now, cpuLast: cpu });
    else seen.set(file, { first: lastEvent, last: now, cpuFirst: lastCpu, cpuLast: cpu });
    lastEvent = now;
    lastCpu = cpu;
  }
  const root = process.cwd() + '/';
  const rows = [...seen]
    .map(([file, { first, last, cpuFirst, cpuLast }]) => ({ file: file.replace(root, ''), seconds: (last - first) / 1000, cpu: cpuLast - cpuFirst }))
    .sort((a, b) => b.seconds - a.seconds);
  const total = rows.reduce((sum, row) => ({ seconds: sum.seconds + row.seconds, cpu: sum.cpu + row.cpu }), { seconds: 0, cpu: 0 });
  const line = (seconds: number, cpu: number, what: string) => `${seconds.toFixed(1).padStart(7)} s ${cpu.toFixed(1).padStart(7)} s CPU  ${what}`;
  yield `${rows.map((row) => line(row.seconds, row.cpu, row.file)).join('\n')}\n${line(total.seconds, total.cpu, `in all (${rows.length} files)`)}\n`;
}

/** CPU seconds of this process and of its reaped children (Linux's /proc; elsewhere this process's own). */
function cpuSeconds(): number {
  try {
    // Fields 14-17 (utime, stime, cutime, cstime) in clock ticks, after the parenthesised name.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
  } catch {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  }
}
