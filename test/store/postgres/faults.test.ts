import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createLogger } from '../../../src/http/logging.js';
import { runCli } from '../../cli/cliProcess.js';
import { fixtureFile } from '../../support/fixture.js';
import { exchange, serveDatabase } from '../../support/harness.js';
import { databaseOnOwnCluster } from '../../support/ownCluster.js';

/** A port where no server listens (the discard port, never served here). */
const NOWHERE = 'postgres://postgres@127.0.0.1:9/compdata';

describe('a PostgreSQL server that cannot be reached', () => {
  for (const args of [['keys', 'list'], ['export', '--tenant', 'acme'], ['serve', '--port', '0']]) {
    test(`at the start of ${args[0]}: one line on stderr, exit 2`, async () => {
      const result = await runCli([...args, '--db', NOWHERE]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /^error: [^\n]*cannot open database postgres:\/\/postgres@127\.0\.0\.1:9\/compdata[^\n]*\n$/);
    });
  }
});

describe('a PostgreSQL server lost while serving (a cluster of its own, stopped and started again)', () => {
  test('requests meanwhile get a 503 problem with Retry-After, never a 500; the server recovers by itself', { timeout: 60_000 }, async (t) => {
    const { cluster, database } = await databaseOnOwnCluster(t, 'lost');
    const { key } = await fixtureFile(database, { tenant: 'acme', records: 50 });
    const server = await serveDatabase(database, { logger: createLogger('silent') });
    t.after(() => server.close());
    const item = { user: 'user1@acme.example', group_dimension: 'region', group: 'LATAM', start_date: '2026-01' };
    const load = async () => {
      const [page, put, health] = await Promise.all([
        exchange(server.url, 'GET', '/v1/reporting?limit=10', { key }),
        exchange(server.url, 'PUT', '/v1/users/groups/bulk', { key, json: { data: [item] } }),
        exchange(server.url, 'GET', '/healthz'),
      ]);
      return [page, put, health];
    };
    assert.deepEqual((await load()).map((r) => r.status), [200, 200, 200]);

    const statuses = new Set<number>();
    let down = true;
    const restarted = cluster.restart(1_500).then(() => (down = false));
    while (down) {
      for (const response of await load()) {
        statuses.add(response.status);
        if (response.status === 503) {
          assert.equal(response.headers.get('retry-after'), '1');
          assert.equal(response.headers.get('content-type'), 'application/problem+json');
        }
      }
    }
    await restarted;
    assert.ok(statuses.has(503), `answers while the database was away: ${[...statuses].join(',')}`);
    assert.ok([...statuses].every((status) => status === 200 || status === 503), `answers: ${[...statuses].join(',')}`);
    const after = await load();
    assert.deepEqual(after.map((r) => r.status), [200, 200, 200], 'the first requests after the restart are answered');
  });
});
