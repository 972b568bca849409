/**
 * Runs test files one after another in this one process (node:test's `isolation: 'none'`): the
 * modules, the contract and its validators load once for all of them, not once per file.
 *
 *   node --import tsx test/support/runTests.ts [--times FILE] [--jobs N] FILES...
 *
 * Prints the spec report; with `--times`, writes each file's time, slowest first, to FILE
 * (fileTimes.ts). With `--jobs N`, the files are shared over N such runners side by side
 * (testShards.ts), each report printed whole. Exits 0 only when the run's own summary says every
 * test passed: a run that ends before its summary (a file that exits the process, a crash) is a
 * failure, never a silent pass. The process is kept alive until the reports are written in full.
 */
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import fileTimes from './fileTimes.js';
import { runSharded } from './testShards.js';

const args = process.argv.slice(2);
const option = (name: string): string | null | undefined => {
  const at = args.indexOf(name);
  return at < 0 ? undefined : (args.splice(at, 2)[1] ?? null);
};
const timesFile = option('--times');
const jobs = Number(option('--jobs') ?? 1);
if (args.length === 0 || timesFile === null || !Number.isInteger(jobs) || jobs < 1) {
  process.stderr.write('usage: runTests.ts [--times FILE] [--jobs N] FILES...\n');
  process.exit(2);
}

// The times file's folder is made here: a stream into a folder that does not exist would fail
// after the run began, with nothing to say so.
if (timesFile) mkdirSync(dirname(timesFile), { recursive: true });

if (jobs > 1 && args.length > 1) {
  const { success, timeLines } = await runSharded(fileURLToPath(import.meta.url), args, jobs);
  if (timesFile) writeFileSync(timesFile, `${timeLines.sort((a, b) => parseFloat(b) - parseFloat(a)).join('\n')}\n(${jobs} runners side by side)\n`);
  process.exit(success ? 0 : 1);
}

// In one process, node:test ends its run when nothing is left to do ('beforeExit'); its reports
// are written after that, by work that alone would not keep the process alive: this does.
let reported = false;
let keepAlive: NodeJS.Timeout | undefined;
process.on('beforeExit', () => {
  if (!reported) keepAlive ??= setInterval(() => {}, 60_000);
});
// A test that ends the process itself ends the run before its summary: that is a failure.
process.on('exit', () => {
  if (!reported) {
    // The stack says who ended it (process.exit emits 'exit' on its caller's stack).
    process.stderr.write(`the test run ended before its summary: a failure\n${new Error('ended here').stack}\n`);
    process.exitCode = 1;
  }
});
let summary: { success: boolean } | undefined;
const stream = run({ files: args, isolation: 'none', concurrency: 1 });
stream.on('test:summary', (data: { file?: string; success: boolean }) => {
  if (data.file === undefined) summary = data;
});
// Each report reads the events through a branch of its own.
const branch = () => stream.pipe(new PassThrough({ objectMode: true }));
const report = branch().compose(spec());
report.pipe(process.stdout);
const reports = [finished(report, { writable: false })];
if (timesFile) reports.push(finished(branch().compose(fileTimes).pipe(createWriteStream(timesFile))));
await Promise.all(reports);
reported = true;
clearInterval(keepAlive);
process.exitCode = summary?.success ? 0 : 1;
