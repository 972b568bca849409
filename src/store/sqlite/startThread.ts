import { Worker } from 'node:worker_threads';

/**
 * Starts the worker thread whose module is `name` beside `base` (an `import.meta.url`): the
 * `.js` module once compiled; from the TypeScript sources, through threadFromSource.mjs.
 */
export function startThread(base: string, name: string, workerData: object): Worker {
  if (!base.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, base), { workerData });
  const threadModule = new URL(`./${name}.ts`, base).href;
  return new Worker(new URL('./threadFromSource.mjs', base), { workerData: { ...workerData, threadModule } });
}
