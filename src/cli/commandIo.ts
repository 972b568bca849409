import type { Readable, Writable } from 'node:stream';

/** A stream a command writes to: a terminal tells it so (`isTTY`, `columns`), as `process.stdout` does. */
export type OutputStream = Writable & { readonly isTTY?: boolean; readonly columns?: number };

/**
 * Where a command reads its input and writes its output: the process's own streams when the
 * command runs as `compdata`, others when a caller runs a command line in its own process
 * (`runCli`). Of the rest of the process a command only reads its environment and working
 * directory: it neither exits nor sets `process.exitCode`, and installs no signal handler (but
 * `serve` and `webhooks listen`, which own their process: see `runCli`).
 */
export interface CommandIo {
  readonly stdin: Readable;
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
}

/** The process's streams, each taken when first used (standard input is never opened by a command that does not read it). */
export const processIo: CommandIo = {
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
};
