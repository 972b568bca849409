import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { startCli } from '../cli/cliProcess.js';
import type { Scope } from './harness.js';

/**
 * `compdata serve` as a process of its own (the CLI from source), over an existing database
 * file: its URL from the first line of stdout, its JSON log lines from the lines after.
 */
export interface ServeProcess {
  url: string;
  child: ChildProcessWithoutNullStreams;
  /** The log lines written so far, parsed. */
  logs(): Record<string, any>[];
  /** Everything written on stderr so far. */
  stderr(): string;
  /** How the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startServe(t: Scope, dbPath: string, args: readonly string[] = []): Promise<ServeProcess> {
  const child = startCli(['serve', '--db', dbPath, '--port', '0', ...args]);
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const lines = createInterface({ input: child.stdout });
  const logLines: string[] = [];
  const first = await new Promise<string>((resolve, reject) => {
    let firstLine: string | undefined;
    lines.on('line', (line) => {
      if (firstLine === undefined) resolve((firstLine = line));
      else logLines.push(line);
    });
    void exited.then(({ code }) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
  });
  const url = /^listening on (http:\/\/\S+)$/.exec(first)?.[1];
  if (!url) throw new Error(`unexpected first line of serve: ${first}`);
  return {
    url,
    child,
    logs: () => logLines.map((line) => JSON.parse(line) as Record<string, any>),
    stderr: () => stderr,
    exited,
  };
}
