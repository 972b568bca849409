import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dateRange, narrows, parseReportingFilter } from '../../src/domain/reportingFilter.js';

describe('parseReportingFilter', () => {
  const cases: [string, { given: Parameters<typeof parseReportingFilter>[0]; want: unknown }][] = [
    ['nothing', { given: {}, want: {} }],
    ['every filter', { given: { user: 'A@b.example', date_from: '2026-01-31', date_to: '2026-02-01', plan: 'AE' }, want: { user: 'A@b.example', dateFrom: '2026-01-31', dateTo: '2026-02-01', plan: 'AE' } }],
    ['one day', { given: { date_from: '2024-02-29', date_to: '2024-02-29' }, want: { dateFrom: '2024-02-29', dateTo: '2024-02-29' } }],
    ['from after to', { given: { date_from: '2026-03-02', date_to: '2026-03-01' }, want: [{ pointer: '/query/date_from', message: 'must not be after date_to (2026-03-01)' }] }],
    ['no such day', { given: { date_to: '2025-02-29' }, want: [{ pointer: '/query/date_to', message: 'must be a calendar date YYYY-MM-DD' }] }],
    ['not a date', { given: { date_from: '2026-1-1' }, want: [{ pointer: '/query/date_from', message: 'must be a calendar date YYYY-MM-DD' }] }],
  ];
  for (const [name, { given, want }] of cases) test(name, () => assert.deepEqual(parseReportingFilter(given), want));
});

describe('dateRange', () => {
  test('open ends are the first and last dates a record can have; months are those of the dates', () => {
    assert.equal(dateRange({ user: 'a@b.example' }), undefined);
    assert.deepEqual(dateRange({ dateFrom: '2026-01-31' }), { from: '2026-01-31', to: '9999-12-31', firstMonth: 2026 * 12, lastMonth: 9999 * 12 + 11 });
    assert.deepEqual(dateRange({ dateTo: '0001-02-03' }), { from: '0000-01-01', to: '0001-02-03', firstMonth: 0, lastMonth: 13 });
  });
  test('narrows', () => {
    assert.equal(narrows({}), false);
    assert.equal(narrows({ plan: 'AE' }), true);
  });
});
