/**
 * One pass of the suite split over several runner processes (`runTests.ts --jobs N`): most test
 * files wait on servers, CLI commands and databases more than they compute, so on two cores
 * several runners side by side finish a pass in less time than one. Each runner is runTests.ts
 * again over a share of the files, one file at a time as always; its report is printed whole
 * when it ends, so the reports of the runners never interleave.
 *
 * The files are shared out longest first, each to the runner with the least time so far
 * (Graham's rule), by the time each file took the last time this pass ran in this working copy
 * (kept in node_modules/.cache, as the compile cache is). Files with no time yet (a fresh clone)
 * are dealt out in turn, in the order given, each to the runner with the fewest files.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CACHE_DIRECTORY = join('node_modules', '.cache', 'compdata-test-times');

export interface ShardedRun {
  /** Whether every runner's own summary said every test passed. */
  success: boolean;
  /** Each file's time, as the runners' `--times` reports give them: lines of fileTimes.ts. */
  timeLines: string[];
}

/** Splits `files` into `jobs` shares (see above). */
export function shareOut(files: readonly string[], jobs: number, seconds: ReadonlyMap<string, number>): string[][] {
  const shares = Array.from({ length: Math.min(jobs, files.length) }, () => ({ files: [] as string[], seconds: 0 }));
  const known = files.filter((file) => seconds.has(file)).sort((a, b) => seconds.get(b)! - seconds.get(a)!);
  for (const file of known) {
    const fewer = (a: (typeof shares)[number], b: (typeof shares)[number]) => a.seconds < b.seconds || (a.seconds === b.seconds && a.files.length < b.files.length);
    const least = shares.reduce((best, share) => (fewer(share, best) ? share : best));
    least.files.push(file);
    least.seconds += seconds.get(file)!;
  }
  for (const file of files.filter((file) => !seconds.has(file))) {
    shares.reduce((best, share) => (share.files.length < best.files.length ? share : best)).files.push(file);
  }
  // Each runner runs its files in the order given, as a pass of one runner would.
  return shares.map((share) => files.filter((file) => share.files.includes(file))).filter((share) => share.length > 0);
}

/** Runs the files over `jobs` runners of `runner` (runTests.ts), printing each runner's report whole. */
export async function runSharded(runner: string, files: readonly string[], jobs: number): Promise<ShardedRun> {
  const cacheFile = join(CACHE_DIRECTORY, `${createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 16)}.json`);
  const shares = shareOut(files, jobs, readSeconds(cacheFile));
  const outcomes = await Promise.all(shares.map((share, i) => runShare(runner, share, i, shares.length)));
  const timeLines = outcomes.flatMap((outcome) => outcome.timeLines);
  writeSeconds(cacheFile, timeLines);
  return { success: outcomes.every((outcome) => outcome.success), timeLines };
}

async function runShare(runner: string, files: readonly string[], index: number, count: number): Promise<ShardedRun> {
  const timesFile = join(CACHE_DIRECTORY, `runner-${process.pid}-${index}.txt`);
  mkdirSync(CACHE_DIRECTORY, { recursive: true });
  const child = spawn(process.execPath, [...process.execArgv, runner, '--times', timesFile, ...files], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
  process.stdout.write(`\n# runner ${index + 1} of ${count}: ${files.length} files, exit code ${code}\n`);
  process.stdout.write(Buffer.concat(output));
  let timeLines: string[] = [];
  try {
    timeLines = readFileSync(timesFile, 'utf8').split('\n').filter((line) => line.trim() && !line.includes(' in all ('));
  } catch {
    // A runner that ended before its report wrote no times: its exit code already says it failed.
  }
  rmSync(timesFile, { force: true });
  return { success: code === 0, timeLines };
}

function readSeconds(cacheFile: string): Map<string, number> {
  try {
    return new Map(Object.entries(JSON.parse(readFileSync(cacheFile, 'utf8')) as Record<string, number>));
  } catch {
    return new Map();
  }
}

function writeSeconds(cacheFile: string, timeLines: readonly string[]): void {
  const seconds = Object.fromEntries(timeLines.map((line) => line.trim().split(/\s+/)).map((parts) => [parts.at(-1)!, Number(parts[0])]));
  mkdirSync(CACHE_DIRECTORY, { recursive: true });
  writeFileSync(cacheFile, JSON.stringify(seconds));
}
