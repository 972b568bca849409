import { createRequire } from 'node:module';
import type { SingleBar } from 'cli-progress';
import type { OutputStream } from './commandIo.js';

// cli-progress is loaded when a bar is shown (a terminal), not by every start of the command.
const load = createRequire(import.meta.url);

/**
 * A progress bar on `stream` when it is a terminal, else none. `format` may use cli-progress's
 * tokens ({bar}, {percentage}, {value}, {total}, {duration}) and the payload's ({rate}, ...).
 */
export function progressBar(stream: OutputStream, format: string, total: number): SingleBar | undefined {
  if (!stream.isTTY) return undefined;
  const { SingleBar: Bar } = load('cli-progress') as typeof import('cli-progress');
  const bar = new Bar({
    stream,
    format,
    clearOnComplete: true,
    // A load is one transaction: Ctrl-C ends the process at once (nothing is written), with no
    // chance to show a hidden cursor again. So it is never hidden.
    hideCursor: false,
  });
  bar.start(total, 0, { rate: 0, elements: 0 });
  return bar;
}

/** Elements per second since `started` (a `performance.now()` reading), rounded. */
export function ratePerSecond(count: number, started: number): number {
  const seconds = (performance.now() - started) / 1000;
  return seconds > 0 ? Math.round(count / seconds) : 0;
}
