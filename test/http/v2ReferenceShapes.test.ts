import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { shared, startTestServer } from '../support/harness.js';
import { walkV2, withoutTime } from '../support/v2Mapping.js';

/**
 * Two shapes of the v2 reads as the hosted reference shows them (docs/rules.md#v2-reads): the
 * properties of an object field as objects with their type and whether they are required, and
 * a record's id keyed `standard.id` in a data table's records too.
 */

const STATEMENTS = '2fa94265-8b29-8997-887d-7958c0ab8234';
const DEALS = '34e95ea1-8cbc-866c-8332-8f647ce1e7b6';

type Field = { api_key: string; name: string; type: string; format: string | null; origin: string; properties: Record<string, unknown> | null };

describe('v2 shapes of the hosted reference', () => {
  const fixture = shared(async (scope) => {
    let acme!: Fixture;
    const server = await startTestServer(scope, {}, async (store) => {
      acme = await buildFixture(store, { tenant: 'acme', records: 4, deals: 5 });
      // A table whose amount may lack its currency: the property is still there, `null`.
      await store.loadTenant('acme', {}, async (writer) => {
        await writer.defineDataTable('quotes', 'Quotes', [{ key: 'price', type: 'amount' }, { key: 'seller', type: 'user' }]);
        await writer.upsertTableRecords('quotes', [
          { id: 'q1', price: 10, price_currency: null, seller: 'u0' },
          { id: 'q2', price: null, price_currency: 'USD', seller: null },
        ]);
      });
    });
    const structures = await server.call('GET', '/v2/data-structures', { key: acme.key });
    const quotes = (structures.body.data as { id: string; name: string }[]).find((structure) => structure.name === 'Quotes')!.id;
    return { server, acme, quotes };
  });

  test('fields: the properties of an amount and of a user reference are objects of their type, each required [conf:v2-field-properties]', async () => {
    const { server, acme, quotes } = await fixture();
    const fieldsOf = async (id: string) => (await server.call('GET', `/v2/data-structures/${id}/fields`, { key: acme.key })).body.fields as Field[];
    const amount = { value: { type: 'number', required: true }, currency: { type: 'string', required: true } };
    const userReference = { id: { type: 'string', required: true }, email: { type: 'string', required: true } };
    for (const id of [STATEMENTS, DEALS, quotes]) {
      for (const field of await fieldsOf(id)) {
        const expected = field.format === 'currency' ? amount : field.format === 'user_reference' ? userReference : null;
        assert.deepEqual(field.properties, expected, field.api_key);
        assert.equal(field.type === 'object', expected !== null, field.api_key);
      }
    }
    const statementObjects = (await fieldsOf(STATEMENTS)).filter((field) => field.properties !== null).map((field) => field.api_key);
    assert.deepEqual(statementObjects, ['standard.user', 'standard.payment', 'standard.target', 'standard.on_target_earning', 'standard.achievement', 'standard.total_commission', 'custom.new_arr']);
    // A table field declared `user` is the user's id, a string: no properties.
    const seller = (await fieldsOf(quotes)).find((field) => field.api_key === 'datatable.seller')!;
    assert.deepEqual([seller.type, seller.format, seller.properties], ['string', 'user_id', null]);

    // Required: every record holds both properties of each amount, `null` where the value is missing.
    const { records } = await walkV2(server, acme.key, `/v2/reporting/${quotes}/records`);
    assert.deepEqual(records.map((record) => withoutTime(record).fields), [
      { 'standard.id': 'q1', 'datatable.price': { value: 10, currency: null }, 'datatable.seller': 'u0' },
      { 'standard.id': 'q2', 'datatable.price': { value: null, currency: 'USD' }, 'datatable.seller': null },
    ]);
  });

  test('records: a data table record is keyed standard.id, as a statement is, listed as a standard field, and pages go by it [conf:v2-record-standard-id]', async () => {
    const { server, acme } = await fixture();
    const fields = (await server.call('GET', `/v2/data-structures/${DEALS}/fields`, { key: acme.key })).body.fields as Field[];
    assert.deepEqual(
      fields.filter((field) => field.origin === 'standard').map((field) => [field.api_key, field.name, field.type, field.format]),
      [['standard.id', 'id', 'string', null], ['standard.last_modified_at', 'last_modified_at', 'string', 'date-time']],
    );
    assert.equal(fields[0]!.api_key, 'standard.id');
    assert.ok(fields.every((field) => field.api_key !== 'datatable.id'));

    const { records, pages } = await walkV2(server, acme.key, `/v2/reporting/${DEALS}/records?limit=2`);
    assert.equal(pages, 3);
    assert.deepEqual(records.map((record) => record['standard.id']), ['acme-d0', 'acme-d1', 'acme-d2', 'acme-d3', 'acme-d4']);
    for (const record of records) {
      assert.deepEqual(Object.keys(record).filter((key) => key.startsWith('standard.')), ['standard.id', 'standard.last_modified_at']);
      assert.ok(!('datatable.id' in record));
    }
    const from = await server.call('GET', `/v2/reporting/${DEALS}/records?start_id=acme-d2&limit=1`, { key: acme.key });
    assert.deepEqual(from.body.data.map((record: Record<string, unknown>) => record['standard.id']), ['acme-d3']);
    assert.equal(from.body.meta.next_start_id, 'acme-d3');

    // The statements keep their id under the same key.
    const statements = await server.call('GET', `/v2/reporting/${STATEMENTS}/statements?limit=1`, { key: acme.key });
    assert.equal(statements.body.data[0]['standard.id'], 'acme-r0');
  });
});
