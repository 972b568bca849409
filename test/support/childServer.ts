/**
 * A server in a process of its own over an existing database file (docs/rules.md#serving): prints its URL on the
 * first line of stdout, stops on SIGTERM. Started by {@link startChildServer}.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../src/http/logging.js';
import { serveDatabase } from './harness.js';

export async function startChildServer(t: TestContext, dbPath: string): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), dbPath], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.after(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  return line;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await serveDatabase(process.argv[2]!, { logger: createLogger('info') });
  process.stdout.write(`${server.url}\n`);
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
}
