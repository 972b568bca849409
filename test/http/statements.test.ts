import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { structureId } from '../../src/domain/v2Json.js';
import { buildFixture, fixtureLine, type Fixture } from '../support/fixture.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { defaultStatus, statementsOf, walkV2, withoutTime } from '../support/v2Mapping.js';

const STATEMENTS = structureId({ kind: 'statements' });
const statementsPath = `/v2/reporting/${STATEMENTS}/statements`;
const MARCH = 2026 * 12 + 2;
/** The statements of u0 given a status each, from March, every other month (u0 has lines in those). */
const U0_MONTHS = ['u0 2026-03', 'u0 2026-05', 'u0 2026-07', 'u0 2026-09'];

type V2 = Record<string, any>;
const v1Of = async (server: TestServer, key: string) => (await server.call('GET', '/v1/reporting?limit=2000', { key })).body.data as V2[];
const statementOf = (record: V2) => `${record['standard.user'].id} ${String(record['standard.date']).slice(0, 7)}`;

describe('statements', () => {
  test('each line shows its statement total: the sum of the payments of its user in its month, listed as a currency field [conf:v2-statement-total-commission]', async (t) => {
    let acme!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme', records: 30, users: 2, deals: 0 });
      // A line of u0 in March in another currency: that statement has no single currency.
      await store.loadTenant('acme', {}, async (writer) => {
        await writer.upsertReportingRecords([{ ...fixtureLine('acme', 100, 2), date: '2026-03-02', payment_currency: 'USD' }]);
        await writer.finish();
      });
    });
    const fields = await server.call('GET', `/v2/data-structures/${STATEMENTS}/fields`, { key: acme.key });
    const total = fields.body.fields.find((field: V2) => field.api_key === 'standard.total_commission');
    assert.deepEqual([total.type, total.format, total.origin, total.enum_values], ['object', 'currency', 'standard', null]);

    const v1 = await v1Of(server, acme.key);
    const expected = statementsOf(v1);
    const { records } = await walkV2(server, acme.key, `${statementsPath}?limit=9`);
    assert.equal(records.length, 31);
    for (const [i, record] of records.entries()) assert.deepEqual(record['standard.total_commission'], expected(v1[i]!)['standard.total_commission']);
    // u0 in May: lines 4, 16 and 28 (payments 4.5 + 16.5 + 28.5).
    assert.deepEqual(records.find((record) => record['standard.id'] === 'acme-r4')!['standard.total_commission'], { value: 49.5, currency: 'EUR' });
    assert.deepEqual(records.find((record) => record['standard.id'] === 'acme-r100')!['standard.total_commission'], { value: null, currency: null });
    assert.deepEqual(records.find((record) => record['standard.id'] === 'acme-r2')!['standard.total_commission'], { value: null, currency: null });
  });

  test('each line shows its statement status, loaded once per statement; a statement loaded without one is validated before the current month, else draft [conf:v2-statement-status]', async (t) => {
    let acme!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme', records: 24, users: 2, deals: 0 });
      await store.loadTenant('acme', {}, async (writer) => {
        await writer.setStatementStatuses([
          { user_id: 'u0', month: MARCH, status: 'paid' },
          { user_id: 'u1', month: MARCH + 1, status: 'sent_to_payroll' },
        ]);
        await writer.finish();
      });
    });
    const fields = await server.call('GET', `/v2/data-structures/${STATEMENTS}/fields`, { key: acme.key });
    const status = fields.body.fields.find((field: V2) => field.api_key === 'standard.status');
    assert.deepEqual([status.type, status.format, status.origin, status.properties], ['string', 'enum', 'standard', null]);

    const given = new Map([['u0 2026-03', 'paid'], ['u1 2026-04', 'sent_to_payroll']]);
    const { records } = await walkV2(server, acme.key, statementsPath);
    assert.equal(records.length, 24);
    for (const record of records) {
      const month = String(record['standard.date']).slice(0, 7);
      assert.equal(record['standard.status'], given.get(statementOf(record)) ?? defaultStatus(month), String(record['standard.id']));
    }
    assert.deepEqual(records.filter((record) => record['standard.status'] === 'paid').map((record) => record['standard.id']), ['acme-r2', 'acme-r14']);
    assert.ok(records.some((record) => record['standard.status'] === 'validated'));
  });

  test('the statuses are draft, validated, sent_to_payroll and paid; a status or a total that changes moves the time of every line of its statement, and only theirs [conf:statement-statuses]', async (t) => {
    let acme!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme', records: 24, users: 2, deals: 0 });
    });
    const fields = await server.call('GET', `/v2/data-structures/${STATEMENTS}/fields`, { key: acme.key });
    const status = fields.body.fields.find((field: V2) => field.api_key === 'standard.status');
    assert.deepEqual(status.enum_values, ['draft', 'validated', 'sent_to_payroll', 'paid']);

    const before = (await walkV2(server, acme.key, statementsPath)).records.map(withoutTime);
    const newest = before.map((record) => record.time).sort().at(-1)!;
    for (const [month, value] of (['draft', 'validated', 'sent_to_payroll', 'paid'] as const).entries()) {
      await server.store.loadTenant('acme', {}, async (writer) => {
        await writer.setStatementStatuses([{ user_id: 'u0', month: MARCH + 2 * month, status: value }]);
        await writer.finish();
      });
    }
    // A new line of u1 in January changes that statement's total.
    await server.store.loadTenant('acme', {}, async (writer) => {
      await writer.upsertReportingRecords([{ ...fixtureLine('acme', 200, 2), user_id: 'u1', date: '2026-01-20' }]);
      await writer.finish();
    });
    const after = (await walkV2(server, acme.key, statementsPath)).records;
    const shown = new Map(after.map((record) => [statementOf(record), record['standard.status']]));
    assert.deepEqual(U0_MONTHS.map((key) => shown.get(key)), ['draft', 'validated', 'sent_to_payroll', 'paid']);

    const changed = (await walkV2(server, acme.key, `${statementsPath}?last_modified_after=${newest}`)).records;
    const statusChanged = U0_MONTHS.filter((key) => before.find((record) => statementOf(record.fields) === key)!.fields['standard.status'] !== shown.get(key));
    const expected = after.filter((record) => [...statusChanged, 'u1 2026-01'].includes(statementOf(record))).map((record) => record['standard.id']);
    assert.deepEqual(changed.map((record) => record['standard.id']), expected);
    assert.ok(expected.includes('acme-r200') && expected.length > 1);
    const january = after.filter((record) => statementOf(record) === 'u1 2026-01');
    assert.equal(new Set(january.map((record) => record['standard.last_modified_at'])).size, 1, 'one change, one time');
  });
});
