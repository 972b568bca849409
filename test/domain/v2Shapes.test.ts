import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modifiedBetween } from '../../src/domain/v2Shapes.js';

/** The times of `last_modified_after` and `last_modified_before`, in milliseconds since 1970. */
const cases: [string, { given: [string | undefined, string | undefined]; want: { after: number; before: number } }][] = [
  ['none: every time', { given: [undefined, undefined], want: { after: Number.MIN_SAFE_INTEGER, before: Number.MAX_SAFE_INTEGER } }],
  ['UTC, to the millisecond', { given: ['2026-01-01T00:00:00.123Z', undefined], want: { after: 1767225600123, before: Number.MAX_SAFE_INTEGER } }],
  ['an offset, digits past the millisecond cut', { given: [undefined, '2026-01-01T01:00:00.1239+01:00'], want: { after: Number.MIN_SAFE_INTEGER, before: 1767225600123 } }],
  ['lower-case t and z', { given: ['2026-01-01t00:00:00z', undefined], want: { after: 1767225600000, before: Number.MAX_SAFE_INTEGER } }],
  ['a leap second is the second after 23:59:59', { given: ['2016-12-31T23:59:60Z', '2016-12-31T23:59:60.5Z'], want: { after: 1483228800000, before: 1483228800500 } }],
  ['year 0', { given: ['0000-01-01T00:00:00Z', undefined], want: { after: -62167219200000, before: Number.MAX_SAFE_INTEGER } }],
];

for (const [name, { given, want }] of cases) test(`modifiedBetween: ${name}`, () => assert.deepEqual(modifiedBetween(...given), want));
