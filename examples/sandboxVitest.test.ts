/**
 * The same tests as examples/sandboxNodeTest.test.ts, as a user of compdata writes them with
 * vitest: one sandbox tenant for the file, put back in its created state after each test,
 * deleted at the end.
 *
 *   COMPDATA_URL=http://127.0.0.1:8080 COMPDATA_ADMIN_TOKEN=... npx vitest run examples/sandboxVitest.test.ts
 */
import { createSandbox, type Sandbox } from 'compdata/testing';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ users: 5, records: 30, seed: 'vitest' });
});
afterEach(() => sandbox.reset());
afterAll(() => sandbox?.dispose());

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
    expect(page.data).toHaveLength(10);
    expect(page.data.every((record) => record.payment_currency.length === 3)).toBe(true);
    break; // the first page is enough here
  }
});

test('a bulk of group attributions is stored and read back', async () => {
  const { data } = await sandbox.client.users.bulkUpsert([{ email: 'new.rep@example.com', name: 'New Rep' }]);
  expect(data).toHaveLength(1);
  const written = await sandbox.client.attributions.bulkUpsert([
    { user: 'new.rep@example.com', group_dimension: 'region', group: 'EMEA', start_date: '2026-01', end_date: null },
  ]);
  expect(written.count).toBe(1);
  expect(await regionsOf('new.rep@example.com')).toEqual(['EMEA']);
});

test('each test starts from the created state: the write of the test before is gone', async () => {
  expect(await regionsOf('new.rep@example.com')).toEqual([]);
});
