import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { exchange, startTestServer } from '../support/harness.js';
import { startChildServer } from '../support/childServer.js';
import { runCli } from '../cli/cliProcess.js';

describe('several server processes on one database file', () => {
  test('keys, revocations and upserts made through one are seen by the others on their next request', async (t) => {
    let fixture!: Fixture;
    const first = await startTestServer(t, {}, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', users: 3, records: 24 });
    });
    const second = await startChildServer(t, first.database);
    const servers: [string, (path: string, options?: Parameters<typeof exchange>[3]) => ReturnType<typeof exchange>][] = [
      ['in-process', (path, options) => first.call('GET', path, options)],
      ['child process', (path, options) => exchange(second, 'GET', path, options)],
    ];

    const created = await runCli(['keys', 'create', '--db', first.database, '--tenant', 'acme']);
    assert.equal(created.code, 0);
    const key = created.stdout.trim().split('\n').at(-1)!;
    for (const [name, get] of servers) assert.equal((await get('/v1/reporting?limit=1', { key })).status, 200, name);

    // u2 holds no region; a PUT through the child gives it LATAM from 2026-06 on.
    const put = await exchange(second, 'PUT', '/v1/users/groups/bulk', {
      key: fixture.key,
      json: { data: [{ user: 'USER2@acme.example', group_dimension: 'region', group: 'LATAM', start_date: '2026-06' }] },
    });
    assert.equal(put.status, 200);
    for (const [name, get] of servers) {
      const page = await get('/v1/reporting?limit=24', { key: fixture.key });
      for (const record of page.body.data as { user: { id: string }; date: string; region: string[] }[]) {
        if (record.user.id !== 'u2') continue;
        const want = record.date >= '2026-06' ? ['LATAM'] : [];
        assert.deepEqual(record.region, want, `${name}: ${record.date}`);
      }
    }

    const revoked = await runCli(['keys', 'revoke', '--db', first.database, key]);
    assert.equal(revoked.code, 0);
    for (const [name, get] of servers) assert.equal((await get('/v1/reporting?limit=1', { key })).status, 401, name);
  });
});
