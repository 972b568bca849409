import type { TestContext } from 'node:test';
import { startServe } from './serveProcess.js';

/**
 * A server in a process of its own over an existing database (docs/rules.md#serving): `compdata
 * serve` from the build (serveProcess.ts), which starts in about half the CPU time that the same
 * server run from source through tsx takes. Its URL; stopped when the test ends.
 */
export async function startChildServer(t: TestContext, dbPath: string): Promise<string> {
  return (await startServe(t, dbPath, ['--log-level', 'warn'])).url;
}
