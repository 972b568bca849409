// The entry of a worker thread when the server runs from its TypeScript sources (tests, bench
// scripts through tsx): a thread does not inherit tsx's loader, so the thread's module is loaded
// through tsx's API. Compiled code starts the thread's .js module directly (see startThread.ts).
import { workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

await tsImport(workerData.threadModule, import.meta.url);
