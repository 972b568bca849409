import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer } from '../support/harness.js';

describe('GET /v1/tables/{data_table_key}/records', () => {
  test('records are flat: id, then each field in table order with the amount currency companion [conf:tables-set-up-editable]', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme', deals: 7 });
    });
    const page = await server.call('GET', '/v1/tables/deals/records?limit=5', { key: fixture.key });
    assert.equal(page.status, 200);
    assert.equal(page.body.count, 5);
    assert.equal(page.body.next, `${server.url}/v1/tables/deals/records?limit=5&offset=5`);
    page.body.data.forEach((record: Record<string, unknown>, i: number) => {
      assert.deepEqual(Object.keys(record), ['id', 'name', 'owner_id', 'close_date', 'amount', 'amount_currency']);
      assert.deepEqual(record, {
        id: `acme-d${i}`,
        name: `Deal ${i}`,
        owner_id: `u${i % fixture.users}`,
        close_date: `2026-03-${String(i + 1).padStart(2, '0')}T10:00:00.000Z`,
        amount: i * 100,
        amount_currency: 'EUR',
      });
    });
    const rest = await server.call('GET', page.body.next.slice(server.url.length), { key: fixture.key });
    assert.deepEqual(rest.body.data.map((r: { id: string }) => r.id), ['acme-d5', 'acme-d6']);
    assert.equal(rest.body.next, undefined);
    const total = await server.call('GET', '/v1/tables/deals/records?limit=0', { key: fixture.key });
    assert.deepEqual(total.body, { count: 7, data: [] });
  });

  test('an unknown key and a key of another tenant get the same 404', async (t) => {
    let acme!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme' });
      await buildFixture(store, { tenant: 'globex' });
      await store.loadTenant('globex', {}, (writer) => writer.defineDataTable('forecasts', 'F', []));
    });
    const elsewhere = await server.call('GET', '/v1/tables/forecasts/records', { key: acme.key });
    const nowhere = await server.call('GET', '/v1/tables/forecasts/records', { key: acme.key });
    const unknown = await server.call('GET', '/v1/tables/nothing/records', { key: acme.key });
    assert.equal(elsewhere.status, 404);
    assert.equal(unknown.status, 404);
    assert.equal(elsewhere.text, nowhere.text);
    assert.equal(elsewhere.body.title, unknown.body.title);
  });

  test('odd table keys are 404s, never 500s', async (t) => {
    let fixture!: Fixture;
    const server = await startTestServer(t, {}, async (store) => {
      fixture = await buildFixture(store, { tenant: 'acme' });
    });
    for (const key of ['%00', '%E2%82%AC', 'de%2Fals', '..', '%25', 'a'.repeat(129), "'%20OR%201=1"]) {
      const response = await server.call('GET', `/v1/tables/${key}/records`, { key: fixture.key });
      assert.ok([400, 404].includes(response.status), `${key}: ${response.status}`);
    }
  });
});
