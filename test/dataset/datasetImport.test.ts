import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATASET_FORMAT } from '../../src/dataset/datasetFormat.js';
import { DatasetError } from '../../src/domain/datasetError.js';
import { parseMonth } from '../../src/domain/months.js';
import { defaultStatementStatus, monthOfTime } from '../../src/domain/statements.js';
import { EXAMPLE_BYTES, assertRefusedWhole, example, exportOf, importInto } from '../support/datasets.js';
import { tenantsOfSharedDatabase } from '../support/harness.js';

/** The example's text with `find` (which must occur once) replaced by `replacement`. */
function editedExample(find: string, replacement: Buffer | string): Buffer {
  const at = EXAMPLE_BYTES.indexOf(find);
  assert.ok(at >= 0 && EXAMPLE_BYTES.indexOf(find, at + 1) === -1, `${find} occurs once in the example`);
  return Buffer.concat([EXAMPLE_BYTES.subarray(0, at), Buffer.from(replacement), EXAMPLE_BYTES.subarray(at + find.length)]);
}

/** The example as JSON with `edit` applied. */
function withEdit(edit: (dataset: any) => void): object {
  const dataset = example();
  edit(dataset);
  return dataset;
}

const cases: [string, { input: Buffer | object; path: string; reason: RegExp; upsertOnly?: boolean }][] = [
  ['a truncated file', { input: EXAMPLE_BYTES.subarray(0, EXAMPLE_BYTES.indexOf('"id":"r-3"') + 30), path: '$.reporting[2]', reason: /ends/ }],
  ['a list at the top', { input: [example()], path: '$', reason: /must be an object/ }],
  ['a record with an unknown field', { input: withEdit((d) => (d.reporting[2].bonus = 5)), path: '$.reporting[2].bonus', reason: /not a field of a reporting record/ }],
  ['a currency of a metric that does not exist', { input: withEdit((d) => (d.reporting[0].bonus_currency = 'EUR')), path: '$.reporting[0].bonus_currency', reason: /not a field/ }],
  ['a table record with an unknown field', { input: withEdit((d) => (d.tables[0].records[1].color = 'red')), path: '$.tables[0].records[1].color', reason: /not a field of the table/ }],
  ['a duplicate record id', { input: withEdit((d) => (d.reporting[4].id = 'r-2')), path: '$.reporting[4].id', reason: /"r-2" is given twice/ }],
  ['a duplicate table record id', { input: withEdit((d) => (d.tables[0].records[2].id = 'd-1')), path: '$.tables[0].records[2].id', reason: /given twice/ }],
  ['a duplicate user id', { input: withEdit((d) => (d.users[2].id = 'u-ada')), path: '$.users[2].id', reason: /given twice/ }],
  ['a duplicate metric', { input: withEdit((d) => d.dimensions.push({ key: 'new_arr' })), path: '$.dimensions[2].key', reason: /given twice/ }],
  ['a record naming an unknown user', { input: withEdit((d) => (d.reporting[1].user.id = 'u-nobody')), path: '$.reporting[1].user.id', reason: /no user with id u-nobody/ }],
  ['a record whose user object disagrees', { input: withEdit((d) => (d.reporting[0].user.name = 'Ada L.')), path: '$.reporting[0].user.name', reason: /must be "Ada Lovelace"/ }],
  ['an attribution of an unknown user', { input: withEdit((d) => (d.group_attributions[3].user = 'nobody@example.com')), path: '$.group_attributions[3].user', reason: /no user with e-mail/ }],
  ['an attribution to an unknown manager', { input: withEdit((d) => (d.manager_attributions[1].manager = 'x@example.com')), path: '$.manager_attributions[1].manager', reason: /no user/ }],
  ['an unknown dimension', { input: withEdit((d) => (d.group_attributions[1].group_dimension = 'country')), path: '$.group_attributions[1].group_dimension', reason: /no dimension country/ }],
  ['a table record naming an unknown user', { input: withEdit((d) => (d.tables[0].records[0].owner_id = 'u-ghost')), path: '$.tables[0].records[0].owner_id', reason: /no user with id u-ghost/ }],
  ['overlapping group attributions', { input: withEdit((d) => (d.group_attributions[1].start_date = '2026-02')), path: '$.group_attributions[1]', reason: /overlaps \$\.group_attributions\[0\].*2026-02/ }],
  ['overlapping manager attributions', { input: withEdit((d) => d.manager_attributions.push({ user: 'ada.lovelace@example.com', manager: 'alan.turing@example.com', start_date: '2027-01' })), path: '$.manager_attributions[2]', reason: /overlaps \$\.manager_attributions\[0\]/ }],
  ['a cycle of managers', { input: withEdit((d) => d.manager_attributions.push({ user: 'grace.hopper@example.com', manager: 'ada.lovelace@example.com', start_date: '2026-06', end_date: '2026-06' })), path: '$.manager_attributions', reason: /cycle in 2026-06/ }],
  ['a user managing themself', { input: withEdit((d) => (d.manager_attributions[1].manager = 'Alan.Turing@example.com')), path: '$.manager_attributions[1].manager', reason: /own manager/ }],
  ['an end before the start', { input: withEdit((d) => (d.group_attributions[0].end_date = '2025-12')), path: '$.group_attributions[0].end_date', reason: /before start_date/ }],
  ['a payment that is a string', { input: withEdit((d) => (d.reporting[3].payment = '3000')), path: '$.reporting[3].payment', reason: /^must be number$/ }],
  ['a metric holding group names', { input: withEdit((d) => (d.reporting[0].new_arr = ['x'])), path: '$.reporting[0].new_arr', reason: /must be number or null/ }],
  ['a date that does not exist', { input: withEdit((d) => (d.reporting[1].date = '2026-02-30')), path: '$.reporting[1].date', reason: /a date YYYY-MM-DD that exists/ }],
  ['a field name that no key can have', { input: withEdit((d) => (d.reporting[0]['Bonus Pay'] = 1)), path: '$.reporting[0]["Bonus Pay"]', reason: /not a field of a reporting record/ }],
  ['a table with other fields than the stored one', { input: withEdit((d) => d.tables[0].fields.pop()), path: '$.tables[0].fields', reason: /differ from the fields of the stored table/, upsertOnly: true }],
  ['a 10 MB string', { input: withEdit((d) => (d.users[1].name = 'x'.repeat(10 * 1024 * 1024))), path: '$.users[1].name', reason: /longer than/ }],
  ['invalid UTF-8', { input: editedExample('pilot\\" ✓', Buffer.from([0x70, 0xff, 0x74])), path: '$.tables[0].records[1].name', reason: /not valid UTF-8/ }],
];

describe('importDataset: a bad dataset changes nothing and names where it is wrong', () => {
  const newTenant = tenantsOfSharedDatabase();
  for (const [name, { input, path, reason, upsertOnly }] of cases) {
    for (const replace of upsertOnly ? [false] : [false, true]) {
      test(`${name}${replace ? ' (with replace)' : ''}`, async () => {
        const { store, tenant } = await newTenant();
        await assertRefusedWhole(store, input, { path, reason }, { replace }, tenant);
      });
    }
  }

  test('a failed import into a new tenant leaves no tenant behind', async () => {
    const { store, tenant } = await newTenant();
    await assert.rejects(importInto(store, tenant, withEdit((d) => (d.reporting[4].id = 'r-1'))), DatasetError);
    assert.equal(await exportOf(store, tenant), undefined);
  });
});

describe('importDataset: upserts, replaces and extends', () => {
  const newTenant = tenantsOfSharedDatabase();
  test('a second import of the same file updates every record in place and changes nothing', async () => {
    const { store, tenant } = await newTenant();
    await importInto(store, tenant, EXAMPLE_BYTES);
    const first = await exportOf(store, tenant);
    const again = await importInto(store, tenant, EXAMPLE_BYTES);
    assert.deepEqual(again.reporting, { total: example().reporting.length, added: 0, updated: example().reporting.length });
    assert.equal(await exportOf(store, tenant), first);
  });

  test('changed records keep their place, new ones come last, a renamed user shows in its records', async () => {
    const { store, tenant } = await newTenant();
    await importInto(store, tenant, EXAMPLE_BYTES);
    const stored = JSON.parse((await exportOf(store, tenant))!);
    const renamed = { ...stored.users.find((u: any) => u.id === 'u-alan'), name: 'Alan M. Turing' };
    const added = { ...stored.reporting[3], id: 'r-6', date: '2026-04-02', payment: 10 };
    const update = {
      format: DATASET_FORMAT,
      users: [renamed],
      reporting: [{ ...stored.reporting[1], payment: 99.5 }, added],
    };
    const result = await importInto(store, tenant, update);
    assert.deepEqual(result.reporting, { total: 6, added: 1, updated: 1 });
    const expected = structuredClone(stored);
    expected.users = expected.users.map((u: any) => (u.id === 'u-alan' ? renamed : u));
    expected.reporting[1].payment = 99.5;
    for (const record of expected.reporting) if (record.user.id === 'u-alan') record.user = renamed;
    expected.reporting.push(added);
    // Grace's statement of 2026-04, new: the default status (docs/rules.md#statements), after her 2026-02 one, last by e-mail address.
    expected.statements.push({ user: 'grace.hopper@example.com', month: '2026-04', status: defaultStatementStatus(parseMonth('2026-04')!, monthOfTime(new Date())) });
    assert.deepEqual(JSON.parse((await exportOf(store, tenant))!), expected);
  });

  test('replace leaves only the new data', async () => {
    const { store, tenant } = await newTenant();
    await importInto(store, tenant, EXAMPLE_BYTES);
    const user = example().users[2];
    const line = { ...example().reporting[4], new_arr: undefined, new_arr_currency: undefined, services_revenue: undefined, services_revenue_currency: undefined };
    await importInto(store, tenant, { format: DATASET_FORMAT, users: [user], reporting: [line] }, { replace: true });
    const { new_arr: _a, new_arr_currency: _b, services_revenue: _c, services_revenue_currency: _d, ...standard } = line;
    assert.deepEqual(JSON.parse((await exportOf(store, tenant))!), {
      format: DATASET_FORMAT,
      metrics: [],
      dimensions: [],
      users: [user],
      group_attributions: [],
      manager_attributions: [],
      reporting: [{ ...standard, user }],
      statements: [{ user: user.email, month: '2025-12', status: defaultStatementStatus(parseMonth('2025-12')!, monthOfTime(new Date())) }],
      tables: [],
    });
  });

  test('a new metric and a new dimension reach the records already stored', async () => {
    const { store, tenant } = await newTenant();
    await importInto(store, tenant, EXAMPLE_BYTES);
    const stored = JSON.parse((await exportOf(store, tenant))!);
    await importInto(store, tenant, {
      format: DATASET_FORMAT,
      metrics: [{ key: 'bonus' }],
      dimensions: [{ key: 'team' }],
      group_attributions: [{ user: 'grace.hopper@example.com', group_dimension: 'team', group: 'Blue', start_date: '2026-02', end_date: '2026-02' }],
    });
    const expected = structuredClone(stored);
    expected.metrics.push({ key: 'bonus' });
    expected.dimensions.push({ key: 'team' });
    expected.group_attributions.push({ user: 'grace.hopper@example.com', group_dimension: 'team', group: 'Blue', start_date: '2026-02', end_date: '2026-02' });
    expected.reporting = stored.reporting.map((record: any) => {
      const { region, segment, ...rest } = record;
      const team = record.user.id === 'u-grace' && record.date.startsWith('2026-02') ? ['Blue'] : [];
      return { ...rest, bonus: null, bonus_currency: record.payment_currency, region, segment, team };
    });
    const exported = JSON.parse((await exportOf(store, tenant))!);
    assert.deepEqual(exported, expected);
    assert.deepEqual(Object.keys(exported.reporting[0]), Object.keys(expected.reporting[0]));
  });

  test('an attribution overrides the stored ones of its user and dimension in its months', async () => {
    const { store, tenant } = await newTenant();
    await importInto(store, tenant, EXAMPLE_BYTES);
    const item = { user: 'ada.lovelace@example.com', group_dimension: 'region', group: 'APAC', start_date: '2026-02', end_date: '2026-02' };
    await importInto(store, tenant, { format: DATASET_FORMAT, group_attributions: [item] });
    const exported = JSON.parse((await exportOf(store, tenant))!);
    const adaRegions = exported.group_attributions.filter((a: any) => a.user === item.user && a.group_dimension === 'region');
    assert.deepEqual(adaRegions.map((a: any) => [a.group, a.start_date, a.end_date]), [
      ['EMEA', '2026-01', '2026-01'],
      ['APAC', '2026-02', '2026-02'],
      ['North America', '2026-03', null],
    ]);
    assert.deepEqual(exported.reporting.map((r: any) => [r.id, r.region]), [
      ['r-1', ['EMEA']],
      ['r-2', ['APAC']],
      ['r-3', ['North America']],
      ['r-4', ['North America']],
      ['r-5', []],
    ]);
  });
});
