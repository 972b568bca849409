import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runCli } from '../cli/cliProcess.js';
import { EXAMPLE_BYTES, example, importInto } from '../support/datasets.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { v2OfV1TableRecord, walkV2, withoutTime } from '../support/v2Mapping.js';

/** The standard fields of a statement reporting record, in the interface document's order. */
const STANDARD = [
  'id', 'date', 'plan', 'user', 'payment', 'payment_currency', 'target', 'target_currency', 'target_achievement',
  'on_target_earning', 'on_target_earning_currency', 'achievement', 'achievement_currency',
];

type Json = Record<string, any>;

/**
 * What GET /v1/reporting must return for the dataset, computed from the file alone: the user
 * object of the users section, every metric (null when left out, in the payment currency), and
 * every dimension as the groups the user's attributions give in the record's month (docs/rules.md#metrics-and-dimensions).
 */
function expectedReporting(dataset: Json): Json[] {
  const users = new Map<string, Json>(dataset.users.map((user: Json) => [user.id, user]));
  return dataset.reporting.map((record: Json) => {
    const user = users.get(record.user.id)!;
    const expected: Json = {};
    for (const field of STANDARD) expected[field] = field === 'user' ? user : record[field];
    for (const { key } of dataset.metrics) {
      expected[key] = record[key] ?? null;
      expected[`${key}_currency`] = record[`${key}_currency`] ?? record.payment_currency;
    }
    const month = record.date.slice(0, 7);
    for (const { key } of dataset.dimensions) {
      expected[key] = dataset.group_attributions
        .filter((a: Json) => a.user.toLowerCase() === user.email.toLowerCase() && a.group_dimension === key)
        .filter((a: Json) => a.start_date <= month && (a.end_date == null || month <= a.end_date))
        .sort((a: Json, b: Json) => a.start_date.localeCompare(b.start_date))
        .map((a: Json) => a.group);
    }
    return expected;
  });
}

/** What GET /v1/tables/{key}/records must return: id, each field in order (null when left out), amount currencies. */
function expectedTableRecords(table: Json): Json[] {
  return (table.records ?? []).map((record: Json) => {
    const expected: Json = { id: record.id };
    for (const { key, type } of table.fields) {
      expected[key] = record[key] ?? null;
      if (type === 'amount') expected[`${key}_currency`] = record[`${key}_currency`] ?? null;
    }
    return expected;
  });
}

/** Every record of a paged operation, following `next` from a page of `limit`. */
async function walk(server: TestServer, key: string, path: string, limit: number): Promise<Json[]> {
  const records: Json[] = [];
  let next: string | undefined = `${path}?limit=${limit}`;
  while (next !== undefined) {
    const page = await server.call('GET', next, { key });
    assert.equal(page.status, 200, page.text);
    records.push(...page.body.data);
    next = page.body.next?.slice(server.url.length);
  }
  return records;
}

function assertSameRecords(actual: Json[], expected: Json[]): void {
  assert.deepEqual(actual, expected);
  actual.forEach((record, i) => assert.deepEqual(Object.keys(record), Object.keys(expected[i]!), `field order of ${record.id}`));
}

describe('an imported dataset is what the API serves', () => {
  test('GET /v1/reporting and GET /v1/tables/{key}/records return exactly the file\'s records', async (t) => {
    // Imported in this process, by the command's import, through a store beside the server's.
    const server = await startTestServer(t);
    await importInto(server.store, 'acme', EXAMPLE_BYTES);
    const { key } = await server.store.createKey('acme');
    const dataset = example();

    assertSameRecords(await walk(server, key, '/v1/reporting', 2), expectedReporting(dataset));
    const total = await server.call('GET', '/v1/reporting?limit=0', { key });
    assert.deepEqual(total.body, { count: dataset.reporting.length, data: [] });
    for (const table of dataset.tables) {
      assertSameRecords(await walk(server, key, `/v1/tables/${table.key}/records`, 2), expectedTableRecords(table));
    }
    // And in v2: each table's records keyed as documented, the id as standard.id.
    const structures = (await server.call('GET', '/v2/data-structures', { key })).body.data as { name: string; links: { records: string } }[];
    for (const table of dataset.tables) {
      const { records } = await walkV2(server, key, structures.find((structure) => structure.name === table.name)!.links.records.slice(server.url.length));
      const amounts = (table.fields as Json[]).filter((field) => field.type === 'amount').map((field) => field.key as string);
      assert.deepEqual(records.map((record) => withoutTime(record).fields), expectedTableRecords(table).map((record) => v2OfV1TableRecord(record, amounts)));
    }
  });

  test('an import into a served tenant shows on the next read, in place and appended', async (t) => {
    const server = await startTestServer(t);
    await importInto(server.store, 'acme', EXAMPLE_BYTES);
    const { key } = await server.store.createKey('acme');
    const dataset = example();
    const changed = { ...dataset.reporting[2], payment: 12.25 };
    const added = { ...dataset.reporting[0], id: 'r-9', date: '2026-05-05' };
    const update = { format: dataset.format, reporting: [changed, added] };
    // The import into the served tenant is `compdata import`, a process of its own beside the server.
    const result = await runCli(['import', '--db', server.database, '--tenant', 'acme', '-'], JSON.stringify(update));
    assert.equal(result.code, 0, result.stderr);

    const expected = expectedReporting({ ...dataset, reporting: [...dataset.reporting.slice(0, 2), changed, ...dataset.reporting.slice(3), added] });
    assertSameRecords(await walk(server, key, '/v1/reporting', 4), expected);
  });
});
