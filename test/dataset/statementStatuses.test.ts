import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATASET_FORMAT } from '../../src/dataset/datasetFormat.js';
import { DatasetError } from '../../src/domain/datasetError.js';
import { parseMonth } from '../../src/domain/months.js';
import { defaultStatementStatus, monthOfTime } from '../../src/domain/statements.js';
import { EXAMPLE_BYTES, assertRefusedWhole, example, exportOf, importInto } from '../support/datasets.js';
import { tenantsOfSharedDatabase } from '../support/harness.js';

/**
 * Statements' statuses in datasets (docs/datasets.md, docs/rules.md#statements): the optional
 * `statements` section after `reporting`, written by export for every statement, read back the
 * same; a file without it loads with the default statuses, and an upsert without it keeps the
 * stored ones. The example's statements: Ada's 2026-01, 2026-02 and 2026-03, Grace's 2026-02,
 * Alan's 2025-12.
 */
const ADA = 'ada.lovelace@example.com';
const GRACE = 'grace.hopper@example.com';
const ALAN = 'alan.turing@example.com';

/** The default status of a statement of `month` loaded now. */
const byDefault = (month: string) => defaultStatementStatus(parseMonth(month)!, monthOfTime(new Date()));

/** The statements of the example, in export order (by e-mail address, then month), with `statuses` by `email month` or their default. */
function exampleStatements(statuses: Record<string, string> = {}) {
  const of = (user: string, month: string) => ({ user, month, status: statuses[`${user} ${month}`] ?? byDefault(month) });
  return [of(ADA, '2026-01'), of(ADA, '2026-02'), of(ADA, '2026-03'), of(ALAN, '2025-12'), of(GRACE, '2026-02')];
}

/** The example with a `statements` section, in its place (before `tables`). */
function withStatements(statements: unknown[]): object {
  const { tables, ...rest } = example();
  return { ...rest, statements, tables };
}

const GIVEN = [
  { user: 'Ada.Lovelace@example.com', month: '2026-01', status: 'paid' },
  { user: GRACE, month: '2026-02', status: 'sent_to_payroll' },
  { user: ALAN, month: '2025-12', status: 'draft' },
];
const GIVEN_STATUSES = { [`${ADA} 2026-01`]: 'paid', [`${GRACE} 2026-02`]: 'sent_to_payroll', [`${ALAN} 2025-12`]: 'draft' };

// One database for the describe's tests, each in a tenant of its own, one after another: two
// imports at once on one SQLite store of a process would wait on each other.
describe('statements in datasets', () => {
  const newTenant = tenantsOfSharedDatabase();
  test('a file without statements loads with the default statuses; export writes every statement', async () => {
    const { store, tenant } = await newTenant();
    await importInto(store, tenant, EXAMPLE_BYTES);
    assert.deepEqual(JSON.parse((await exportOf(store, tenant))!).statements, exampleStatements());
  });

  test('statuses given are stored and exported; export then import gives the same bytes; an upsert without them keeps them', async () => {
    const [source, target] = [await newTenant(), await newTenant()];
    const result = await importInto(source.store, source.tenant, withStatements(GIVEN));
    assert.equal(result.counts.statements, GIVEN.length);
    const exported = (await exportOf(source.store, source.tenant))!;
    assert.deepEqual(JSON.parse(exported).statements, exampleStatements(GIVEN_STATUSES));
    assert.deepEqual(Object.keys(JSON.parse(exported)), ['format', 'metrics', 'dimensions', 'users', 'group_attributions', 'manager_attributions', 'reporting', 'statements', 'tables']);
    await importInto(target.store, target.tenant, exported);
    assert.equal(await exportOf(target.store, target.tenant), exported, 'the copy exports the same bytes');

    await importInto(source.store, source.tenant, EXAMPLE_BYTES);
    assert.equal(await exportOf(source.store, source.tenant), exported, 'statuses kept by an upsert that gives none');
    await importInto(source.store, source.tenant, { format: DATASET_FORMAT, statements: [{ user: ADA, month: '2026-03', status: 'validated' }] });
    const statuses = { ...GIVEN_STATUSES, [`${ADA} 2026-03`]: 'validated' };
    assert.deepEqual(JSON.parse((await exportOf(source.store, source.tenant))!).statements, exampleStatements(statuses), 'a status given for stored lines');
  });

  const bad: [string, { statements: unknown[]; path: string; reason: RegExp }][] = [
    ['a statement without lines', { statements: [GIVEN[0], { user: GRACE, month: '2026-05', status: 'paid' }], path: '$.statements[1]', reason: /^the statement of user grace\.hopper@example\.com in 2026-05 has no reporting record/ }],
    ['a statement given twice', { statements: [...GIVEN, { user: 'ADA.lovelace@example.com', month: '2026-01', status: 'draft' }], path: '$.statements[3]', reason: /^the statement of user ada\.lovelace@example\.com in 2026-01 is given twice$/ }],
    ['an unknown user', { statements: [{ user: 'nobody@example.com', month: '2026-01', status: 'paid' }], path: '$.statements[0].user', reason: /no user with e-mail address nobody@example\.com/ }],
    ['an unknown status', { statements: [{ user: ADA, month: '2026-01', status: 'approved' }], path: '$.statements[0].status', reason: /^must be one of "draft", "validated", "sent_to_payroll", "paid"$/ }],
    ['a month that is not one', { statements: [{ user: ADA, month: '2026-13', status: 'paid' }], path: '$.statements[0].month', reason: /pattern/ }],
    ['a field that is not one', { statements: [{ ...GIVEN[0], total: 3 }], path: '$.statements[0].total', reason: /not a field/ }],
  ];
  for (const [name, { statements, path, reason }] of bad) {
    test(`${name}: refused at its path, nothing changed`, async () => {
      const { store, tenant } = await newTenant();
      await assertRefusedWhole(store, withStatements(statements), { path, reason }, {}, tenant);
    });
  }

  test('statements come after reporting and before tables', async () => {
    const { store, tenant } = await newTenant();
    const error = await importInto(store, tenant, { ...example(), statements: GIVEN }).then(
      () => assert.fail('the import succeeded'),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof DatasetError, String(error));
    assert.equal(error.path, '$.statements');
    assert.match(error.reason, /comes after "tables"/);
  });
});
