import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { customKeyProblem, tableFieldKeyProblem, STANDARD_REPORTING_FIELDS } from '../../src/domain/fieldKeys.js';
import { renderDimensionFragment, renderReportingBody, renderUser, type StatementLine } from '../../src/domain/reportingJson.js';
import { renderTableRecord } from '../../src/domain/tableJson.js';

const user = { id: 'u"1', email: 'a@b.example', name: 'Zoë "Q" \\ Ünïcode', role: 'AE', currency: 'EUR', calculation_currency: 'USD', country: 'DE', code: 'X\n1' };
const line: StatementLine = {
  id: 'r1', date: '2026-02-28', plan: 'Plan ✓', payment: 1234.56, payment_currency: 'EUR',
  target: null, target_currency: 'EUR', target_achievement: 0.5, on_target_earning: -1e-7,
  on_target_earning_currency: 'GBP', achievement: 0, achievement_currency: 'USD',
  metrics: { arr: { value: 12, currency: 'USD' } },
};

describe('renderReportingBody', () => {
  test('parses back to the standard fields, then each metric and its currency, in order', () => {
    const json = JSON.parse(`${renderReportingBody(line, renderUser(user), ['arr', 'services'])}}`);
    const { metrics: _metrics, ...standard } = line;
    assert.deepEqual(json, { ...standard, user, arr: 12, arr_currency: 'USD', services: null, services_currency: 'EUR' });
    assert.deepEqual(Object.keys(json), [...STANDARD_REPORTING_FIELDS, 'arr', 'arr_currency', 'services', 'services_currency']);
  });

  test('refuses numbers JSON cannot carry', () => {
    for (const payment of [Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => renderReportingBody({ ...line, payment }, renderUser(user), []), RangeError);
    }
  });

  test('any finite numbers and strings survive the round trip', () => {
    fc.assert(
      fc.property(fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.option(fc.double({ noNaN: true, noDefaultInfinity: true })), (plan, payment, value) => {
        const body = renderReportingBody({ ...line, plan, payment, metrics: { m: { value, currency: 'EUR' } } }, renderUser(user), ['m']);
        const json = JSON.parse(`${body}}`);
        assert.equal(json.plan, plan);
        assert.ok(Object.is(json.payment, payment) || (payment === 0 && json.payment === 0));
        assert.equal(json.m, value === null ? null : value === 0 ? 0 : value);
      }),
    );
  });
});

describe('renderDimensionFragment', () => {
  const periods = [
    { dimensionKey: 'region', group: 'EMEA', start: 10, end: 12 },
    { dimensionKey: 'region', group: 'APAC', start: 13, end: null },
    { dimensionKey: 'segment', group: 'SMB', start: 0, end: 10 },
  ];
  const cases: [string, { month: number; want: object }][] = [
    ['before any region', { month: 5, want: { region: [], segment: ['SMB'] } }],
    ['before any group', { month: -5, want: { region: [], segment: [] } }],
    ['on the first month', { month: 10, want: { region: ['EMEA'], segment: ['SMB'] } }],
    ['on the last month', { month: 12, want: { region: ['EMEA'], segment: [] } }],
    ['in an open period', { month: 999, want: { region: ['APAC'], segment: [] } }],
  ];
  for (const [name, { month, want }] of cases) {
    test(name, () => assert.deepEqual(JSON.parse(`{"x":0${renderDimensionFragment(['region', 'segment'], periods, month)}`), { x: 0, ...want }));
  }
  test('no dimensions: only the closing brace', () => assert.equal(renderDimensionFragment([], periods, 10), '}'));
});

describe('field keys', () => {
  const custom: [string, { key: string; taken?: string[]; ok: boolean }][] = [
    ['a plain key', { key: 'new_arr', ok: true }],
    ['a standard field', { key: 'payment', ok: false }],
    ['the user object', { key: 'user', ok: false }],
    ['a currency companion', { key: 'arr_currency', ok: false }],
    ['a key already taken', { key: 'arr', taken: ['arr'], ok: false }],
    ['upper case', { key: 'ARR', ok: false }],
    ['a leading digit', { key: '1arr', ok: false }],
    ['too long', { key: `a${'b'.repeat(64)}`, ok: false }],
  ];
  for (const [name, { key, taken = [], ok }] of custom) {
    test(`custom key: ${name}`, () => assert.equal(customKeyProblem(key, new Set(taken)) === undefined, ok));
  }
  test('table field keys refuse id and companions', () => {
    assert.notEqual(tableFieldKeyProblem('id', new Set()), undefined);
    assert.notEqual(tableFieldKeyProblem('amount_currency', new Set()), undefined);
    assert.equal(tableFieldKeyProblem('amount', new Set()), undefined);
  });
});

describe('renderTableRecord', () => {
  const fields = [
    { key: 'name', type: 'string' as const },
    { key: 'size', type: 'number' as const },
    { key: 'day', type: 'date' as const },
    { key: 'at', type: 'datetime' as const },
    { key: 'amount', type: 'amount' as const },
    { key: 'owner', type: 'user' as const },
  ];
  test('flat, in field order, missing fields null, amount followed by its currency', () => {
    const json = JSON.parse(renderTableRecord(fields, { id: 'd1', name: 'n', day: '2026-01-31', at: '2026-01-31T23:59:59.5Z', amount: 5, amount_currency: 'EUR' }));
    assert.deepEqual(Object.entries(json), [
      ['id', 'd1'], ['name', 'n'], ['size', null], ['day', '2026-01-31'], ['at', '2026-01-31T23:59:59.5Z'],
      ['amount', 5], ['amount_currency', 'EUR'], ['owner', null],
    ]);
  });
  const bad: [string, Record<string, unknown>][] = [
    ['a number as text', { size: '5' }],
    ['a local date-time', { at: '2026-01-31T10:00:00' }],
    ['an offset date-time', { at: '2026-01-31T10:00:00+02:00' }],
    ['a bad currency', { amount: 1, amount_currency: 'euro' }],
    ['an unknown field', { colour: 'red' }],
    ['a date with a time', { day: '2026-01-31T00:00:00Z' }],
  ];
  for (const [name, extra] of bad) {
    test(`refuses ${name}`, () => assert.throws(() => renderTableRecord(fields, { id: 'd1', ...extra }), TypeError));
  }
});
