import type { TestContext } from 'node:test';
import type { Store } from '../../src/store/store.js';
import { exchange, tempDatabase, type CallOptions, type Exchange, type Scope } from './harness.js';
import { startServe } from './serveProcess.js';

/**
 * A server in a process of its own over an existing database (docs/rules.md#serving): `compdata
 * serve` from the build (serveProcess.ts), which starts in about half the CPU time that the same
 * server run from source through tsx takes. Its URL; stopped when the test ends.
 */
export async function startChildServer(t: TestContext, dbPath: string): Promise<string> {
  return (await startServe(t, dbPath, ['--log-level', 'warn'])).url;
}

interface ChildTestServer {
  url: string;
  /** The store over the same database, in this process: for setting up data. */
  store: Store;
  /** One HTTP exchange, checked against the contract (harness.ts's `exchange`). */
  call(method: string, path: string, options?: CallOptions): Promise<Exchange>;
}

/**
 * A fresh database, `prepare` run on it, served by `compdata serve` in a process of its own
 * with `args`: for tests that send thousands of requests. Such a server's work (its promises,
 * its garbage) stays out of the test run's process, where node:test's async hook follows every
 * promise and a collection walks the heap of every module the run has loaded.
 */
export async function startChildTestServer(t: Scope, args: readonly string[], prepare?: (store: Store) => Promise<unknown>): Promise<ChildTestServer> {
  const { database, store } = await tempDatabase(t);
  await prepare?.(store);
  const { url } = await startServe(t, database, ['--log-level', 'warn', ...args]);
  return { url, store, call: (method, path, options) => exchange(url, method, path, options) };
}
