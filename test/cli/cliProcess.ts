import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli as runCommandLine } from '../../src/cli/program.js';

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

/**
 * Runs `compdata <args>` in this process, to its end: the command line as the binary runs it
 * (src/cli/program.ts), its standard streams its own (`input`, when given, is its standard
 * input; none is an empty one), without the start of a process. For what a command does; what a
 * process does (its exit on a signal, its output into a pipe, `serve`) is tested with `runCli`.
 */
export async function runInProcess(args: readonly string[], input?: string | Buffer): Promise<CliResult> {
  const [stdout, stderr] = [new TextSink(), new TextSink()];
  const stdin = Readable.from(input === undefined ? [] : [Buffer.from(input)]);
  const code = await runCommandLine([process.execPath, 'compdata', ...args], { stdin, stdout, stderr });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** A stream that keeps what is written to it. */
class TextSink extends Writable {
  readonly #chunks: Buffer[] = [];

  override _write(chunk: Buffer | string, encoding: BufferEncoding, done: () => void): void {
    this.#chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding));
    done();
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
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
