import { Worker } from 'node:worker_threads';

/**
 * Starts the worker thread whose module is `name` beside `base` (an `import.meta.url`): the
 * `.js` module once compiled; from the TypeScript sources, through threadFromSource.mjs.
 *
 * From the sources, with `COMPDATA_THREADS_FROM_BUILD=1` (`make test` sets it, having just
 * built `dist/` from the same sources), the thread starts from the build instead and without
 * tsx: a thread that loads tsx and the sources costs about 0.3 s of CPU more, and a test run
 * starts hundreds of them.
 */
export function startThread(base: string, name: string, workerData: object): Worker {
  if (!base.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, base), { workerData });
  if (process.env.COMPDATA_THREADS_FROM_BUILD === '1') {
    const built = new URL(`./${name}.js`, base.replace(/\/src\/(?!.*\/src\/)/, '/dist/src/'));
    return new Worker(built, { workerData, execArgv: withoutTsx(process.execArgv) });
  }
  const threadModule = new URL(`./${name}.ts`, base).href;
  return new Worker(new URL('./threadFromSource.mjs', import.meta.url), { workerData: { ...workerData, threadModule } });
}

/** The process's options but `--import tsx`. */
export function withoutTsx(options: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < options.length; i += 1) {
    if (options[i] === '--import' && options[i + 1] === 'tsx') i += 1;
    else if (options[i] !== '--import=tsx') kept.push(options[i]!);
  }
  return kept;
}

/**
 * Asks a database thread to stop (`message`: its protocol's stop) and resolves once it has
 * exited, its connection closed; holds the process open until then. Nothing to do without one.
 */
export async function stopThread(thread: Worker | undefined, message: unknown): Promise<void> {
  if (!thread) return;
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  thread.ref(); // until it has closed its connection
  thread.postMessage(message);
  await exited;
}
