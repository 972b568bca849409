import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { TestContext } from 'node:test';
import { startCli } from './cliProcess.js';

/** `compdata webhooks listen` running: where it listens, and the lines it prints. */
export interface Listener {
  url: string;
  /** The next line the listener prints, within a deadline. */
  nextLine(): Promise<string>;
  /** Stops it (SIGTERM) and waits for its end. */
  stop(): Promise<void>;
}

/** Starts `compdata <args>` (a `webhooks listen` command line), stopped when the test ends. */
export async function startListener(t: TestContext, args: readonly string[]): Promise<Listener> {
  const child = startCli(args);
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  t.after(stop);
  const waiting: ((line: string) => void)[] = [];
  const ready: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const taker = waiting.shift();
    if (taker) taker(line);
    else ready.push(line);
  });
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      const line = ready.shift();
      if (line !== undefined) return resolve(line);
      const timer = setTimeout(() => reject(new Error('no line from the listener within 20 s')), 20_000);
      waiting.push((text) => {
        clearTimeout(timer);
        resolve(text);
      });
    });
  const first = await nextLine();
  const url = /^listening on (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(first)?.[1];
  assert.ok(url, `first line: ${first}`);
  return { url, nextLine, stop };
}
