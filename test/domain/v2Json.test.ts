import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { storedTimeOf, structureId } from '../../src/domain/v2Json.js';

describe('storedTimeOf: a filter time as the stored times are written', () => {
  const cases: [string, { given: string; direction: 'down' | 'up'; want: string | undefined }][] = [
    ['UTC with milliseconds', { given: '2026-11-20T09:30:00.123Z', direction: 'down', want: '2026-11-20T09:30:00.123Z' }],
    ['no fraction', { given: '2026-11-20T09:30:00Z', direction: 'up', want: '2026-11-20T09:30:00.000Z' }],
    ['an offset', { given: '2026-11-20T11:30:00.5+02:00', direction: 'down', want: '2026-11-20T09:30:00.500Z' }],
    ['digits past the millisecond, rounded down', { given: '2026-11-20T09:30:00.1239Z', direction: 'down', want: '2026-11-20T09:30:00.123Z' }],
    ['digits past the millisecond, rounded up', { given: '2026-11-20T09:30:00.1231Z', direction: 'up', want: '2026-11-20T09:30:00.124Z' }],
    ['zeros past the millisecond change nothing', { given: '2026-11-20T09:30:00.123000Z', direction: 'up', want: '2026-11-20T09:30:00.123Z' }],
    ['lower-case t and z (RFC 3339 allows them)', { given: '2026-11-20t09:30:00z', direction: 'down', want: '2026-11-20T09:30:00.000Z' }],
    ['no zone', { given: '2026-11-20T09:30:00', direction: 'down', want: undefined }],
    ['the year 0000', { given: '0000-01-01T00:00:00Z', direction: 'down', want: '0000-01-01T00:00:00.000Z' }],
    ['past 9999 by its offset', { given: '9999-12-31T23:00:00-02:00', direction: 'down', want: undefined }],
    ['no calendar date', { given: '2026-02-30T00:00:00Z', direction: 'down', want: undefined }],
  ];
  for (const [name, { given, direction, want }] of cases) test(name, () => assert.equal(storedTimeOf(given, direction), want));

  test('rounding down then comparing is the same as comparing exactly, for stored times (whole milliseconds)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: 0, max: 4e12 }), fc.nat(999_999), (stored, filter, micro) => {
        const storedText = new Date(stored).toISOString();
        const given = `${new Date(filter).toISOString().slice(0, 19)}.${String(filter % 1000).padStart(3, '0')}${String(micro).padStart(6, '0')}Z`;
        // In nanoseconds, exactly (bigints: a double holds 4e18 only to within 512).
        const [storedNs, givenNs] = [BigInt(stored) * 1_000_000n, BigInt(filter) * 1_000_000n + BigInt(micro)];
        const exact = storedNs > givenNs; // after the given instant
        assert.equal(storedText > storedTimeOf(given, 'down')!, exact);
        const before = storedNs < givenNs;
        assert.equal(storedText < storedTimeOf(given, 'up')!, before);
      }),
    );
  });
});

describe('structureId', () => {
  test('a version-8 UUID, the same for the same structure, another for another', () => {
    const statements = structureId({ kind: 'statements' });
    assert.match(statements, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(structureId({ kind: 'statements' }), statements);
    const keys = ['deals', 'Deals', 'statement_reporting', 'a:b', ''];
    const ids = new Set([statements, ...keys.map((key) => structureId({ kind: 'table', key }))]);
    assert.equal(ids.size, keys.length + 1);
  });
});
