import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { exchange } from '../support/harness.js';
import { temporaryDirectory } from './cliProcess.js';

/**
 * The service on each Node line users run (22, 24, 26), whatever Node runs the suite: each
 * release comes from the npm registry (scripts/node.sh, cached in .node/), and runs the built
 * CLI (bin/compdata.js over dist/, as `make test` builds it) through seed, keys, serve, a page,
 * a bulk PUT and a clean SIGTERM. better-sqlite3 is one Node-API binary for all of them. The
 * releases are listed in nodeReleases.txt; `make setup` fetches them beforehand.
 */
const RELEASES = readFileSync(new URL('nodeReleases.txt', import.meta.url), 'utf8').split('\n').filter(Boolean);
const run = promisify(execFile);

async function nodeOf(version: string): Promise<string> {
  const { stdout } = await run('scripts/node.sh', ['--version', version], { encoding: 'utf8' });
  return `${stdout.trim()}/node`;
}

describe('the service on every supported Node line', { concurrency: true }, () => {
  for (const version of RELEASES) {
    test(`Node ${version}: seed, serve, a page, a bulk PUT, SIGTERM`, async (t) => {
      const node = await nodeOf(version);
      assert.equal((await run(node, ['--version'], { encoding: 'utf8' })).stdout.trim(), `v${version}`);
      const db = `${temporaryDirectory(t)}/compdata.db`;
      const cli = (...args: string[]) => run(node, ['bin/compdata.js', ...args], { encoding: 'utf8' });
      await cli('seed', '--db', db, '--tenant', 'acme', '--users', '12', '--records', '600');
      const key = (await cli('keys', 'create', '--db', db, '--tenant', 'acme')).stdout.trim().split('\n').at(-1)!;

      const child = spawn(node, ['bin/compdata.js', 'serve', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = once(child, 'exit');
      t.after(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
      const lines = createInterface({ input: child.stdout });
      const logs: string[] = [];
      const url = await new Promise<string>((resolve, reject) => {
        lines.on('line', (line) => {
          const listening = /^listening on (\S+)$/.exec(line);
          if (listening) resolve(listening[1]!);
          else logs.push(line);
        });
        void exited.then(([code]) => reject(new Error(`serve exited with ${code} before listening`)));
      });

      const page = await exchange(url, 'GET', '/v1/reporting?limit=50', { key });
      assert.equal(page.status, 200);
      assert.equal(page.body.count, 50);
      const emails = [...new Set(page.body.data.map((record: { user: { email: string } }) => record.user.email))] as string[];
      assert.ok(emails.length >= 2, 'the page names two users');
      const fields = await exchange(url, 'GET', '/v1/reporting/fields', { key });
      const dimension = fields.body.data.find((field: { type: string }) => field.type === 'groups').name as string;
      const put = await exchange(url, 'PUT', '/v1/users/groups/bulk', {
        key,
        json: {
          data: [
            { user: emails[0], group_dimension: dimension, group: 'Node lines', start_date: '2024-01', end_date: null },
            { user: emails[1], group_dimension: dimension, group: 'Node lines', start_date: '2025-03', end_date: '2025-05' },
          ],
        },
      });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.body.count, 2);
      const read = await exchange(url, 'GET', `/v1/users/groups?user=${encodeURIComponent(emails[0]!)}&limit=2000`, { key });
      assert.ok(read.body.data.some((item: { group: string }) => item.group === 'Node lines'), 'the group is read back');

      child.kill('SIGTERM');
      const [code, signal] = await exited;
      assert.deepEqual([code, signal], [0, null]);
      assert.equal(JSON.parse(logs.at(-1)!).msg, 'stopped');
    });
  }
});
