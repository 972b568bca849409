/**
 * A test file as a user of compdata writes it with `node:test`: one sandbox tenant for the file,
 * put back in its created state after each test, deleted at the end.
 *
 *   COMPDATA_URL=http://127.0.0.1:8080 COMPDATA_ADMIN_TOKEN=... node --test examples/sandboxNodeTest.test.ts
 *
 * The server runs with an administration token (`compdata serve --admin-token-file PATH`, or the
 * same COMPDATA_ADMIN_TOKEN in its environment); docs/administration.md.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { createSandbox, type Sandbox } from 'compdata/testing';

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({ users: 5, records: 30, seed: 'node-test' });
});
afterEach(() => sandbox.reset());
after(() => sandbox?.dispose());

/** The groups of `user` in `region`, as the API reads them back. */
async function regionsOf(user: string): Promise<string[]> {
  const groups: string[] = [];
  for await (const item of sandbox.client.attributions.groups.records({ group_dimension: 'region' })) {
    if (item.user === user) groups.push(item.group);
  }
  return groups;
}

test('a page of reporting records', async () => {
  for await (const page of sandbox.client.reporting.pages({ limit: 10 })) {
    assert.equal(page.data.length, 10);
    assert.ok(page.data.every((record) => record.payment_currency.length === 3));
    break; // the first page is enough here
  }
});

test('a bulk of group attributions is stored and read back', async () => {
  const { data } = await sandbox.client.users.bulkUpsert([{ email: 'new.rep@example.com', name: 'New Rep' }]);
  assert.equal(data.length, 1);
  const written = await sandbox.client.attributions.bulkUpsert([
    { user: 'new.rep@example.com', group_dimension: 'region', group: 'EMEA', start_date: '2026-01', end_date: null },
  ]);
  assert.equal(written.count, 1);
  assert.deepEqual(await regionsOf('new.rep@example.com'), ['EMEA']);
});

test('each test starts from the created state: the write of the test before is gone', async () => {
  assert.deepEqual(await regionsOf('new.rep@example.com'), []);
});
