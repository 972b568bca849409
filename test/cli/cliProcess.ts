import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The CLI as users run it: `bin/compdata.js` over `dist/` (`make test` builds it first; run
 * `npm run build` before a test file alone).
 */
const NODE_ARGS = [fileURLToPath(new URL('../../bin/compdata.js', import.meta.url))];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `compdata <args>` to its end; `input`, when given, is its standard input. */
export function runCli(args: readonly string[], input?: string | Buffer, timeoutMs = 0): Promise<CliResult> {
  return new Promise((resolve) => {
    // `timeoutMs`: the command is stopped (SIGTERM) after that long, for commands that should have ended.
    const options = { encoding: 'utf8' as const, maxBuffer: 256 * 1024 * 1024, timeout: timeoutMs };
    const child = execFile(process.execPath, [...NODE_ARGS, ...args], options, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
    // A command may end before it has read all its input (a refusal): the broken pipe is no error here.
    child.stdin!.on('error', () => {});
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** Starts `compdata <args>` and leaves it running (for `serve`). */
export function startCli(args: readonly string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...NODE_ARGS, ...args]);
}

/** A fresh directory, removed when the test ends. */
export function temporaryDirectory(t: { after(fn: () => void): void }): string {
  const directory = mkdtempSync(join(tmpdir(), 'compdata-cli-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}
