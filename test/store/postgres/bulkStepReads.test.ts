import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attributionSteps, bulkSteps } from '../../../src/store/postgres/bulkSteps.js';
import { openPool } from '../../../src/store/postgres/connection.js';
import { tenantWrite } from '../../../src/store/postgres/writeTransaction.js';
import { buildFixture } from '../../support/fixture.js';
import { tempDatabase } from '../../support/harness.js';
import { onlyOn } from '../../support/testDatabases.js';

/**
 * The PostgreSQL bulk upsert reads the stored dimension fields with the stored groups, and the
 * stored manager attributions with the walk up the managers (bulkSteps.ts): a later step asking
 * for the same users and months gets what was read, one asking for others reads them. Either way
 * the answer is what a read of its own gives.
 */
const skip = onlyOn('postgres');

test('the fields and managers read beside other reads are those a read of their own finds', { skip }, async (t) => {
  const { database, store, sql, beforeRemoval } = await tempDatabase(t, 'postgres');
  await buildFixture(store, { tenant: 'acme', users: 4 });
  const tenantId = Number(await sql.value(`SELECT id FROM tenants WHERE name = 'acme'`));
  const pool = openPool(database, { size: 1, onIdleError: () => {} });
  const manager = { kind: 'manager', user: 'user1@acme.example', manager: 'user0@acme.example', start: null, end: null } as const;
  assert.ok('written' in (await tenantWrite(pool, tenantId, { kind: 'attributions', items: [manager] }, 5000)));
  const pairs = async (query: string) => (await sql.rows(query)).map((row) => row.map(Number) as [number, number]);
  const groupRows = await pairs(`SELECT user_pk, dimension_pk FROM group_attributions WHERE tenant_id = ${tenantId} ORDER BY user_pk DESC`);
  const managerRows = await pairs(`SELECT user_pk, manager_pk FROM manager_attributions WHERE tenant_id = ${tenantId} ORDER BY pk`);
  const [[userPk, dimensionPk]] = groupRows as [[number, number]];
  const otherUser = Number(await sql.value(`SELECT user_pk FROM dimension_values WHERE tenant_id = ${tenantId} AND user_pk <> ${userPk} LIMIT 1`));
  const [[managedPk, managerPk]] = managerRows as [[number, number]];

  const client = await pool.connect();
  await client.query('BEGIN');
  beforeRemoval(async () => {
    await client.query('ROLLBACK');
    client.release();
    await pool.end();
  });
  const byRow = <R extends { userPk: number; month: number }>(rows: readonly R[]) => [...rows].sort((a, b) => a.userPk - b.userPk || a.month - b.month);
  const since = { start: null, end: null };
  const months = [
    ['the months read beside the groups', new Map([[userPk, since]])],
    ['other months of that user', new Map([[userPk, { start: 24_300, end: 24_320 }]])],
    ['another user', new Map([[otherUser, since]])],
  ] as const;
  for (const [name, wanted] of months) {
    const steps = bulkSteps(client, tenantId);
    await steps.storedGroups([{ userPk, dimensionPk, period: since }]);
    assert.deepEqual(byRow(await steps.fragments(wanted)), byRow(await bulkSteps(client, tenantId).fragments(wanted)), name);
  }

  const edge = { user: managedPk, manager: managerPk, start: null, end: null };
  const managersOf = [
    ['the edges walked', [{ userPk: managedPk, period: since }]],
    ['other months', [{ userPk: managedPk, period: { start: 24_300, end: 24_320 } }]],
    ['another user', [{ userPk: managerPk, period: since }]],
  ] as const;
  for (const [name, wanted] of managersOf) {
    const steps = bulkSteps(client, tenantId);
    await steps.reachableManagers([edge]);
    const ofItsOwn = await attributionSteps(client, tenantId).storedManagers(wanted);
    assert.deepEqual(await steps.storedManagers(wanted), ofItsOwn, name);
    if (name === 'the edges walked') assert.ok(ofItsOwn.length > 0, 'the walked edge has stored attributions');
  }
});
