import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { MAX_OFFSET, firstPosition, pageOutcome, parsePageRequest as parseWithin, type LimitBounds } from '../../src/domain/paging.js';

/** The bounds of v1's `limit` (the contract's; the server passes those it reads from it: test/contract/pageLimits.test.ts). */
const BOUNDS: LimitBounds = { minimum: 0, maximum: 2000, default: 2000 };
const parsePageRequest = (rawOffset: unknown, rawLimit: unknown) => parseWithin(rawOffset, rawLimit, BOUNDS);

describe('parsePageRequest', () => {
  const accepted: [string, { given: [unknown, unknown]; want: { offset: bigint; limit: number } }][] = [
    ['defaults', { given: [undefined, undefined], want: { offset: 0n, limit: BOUNDS.default } }],
    ['zero limit', { given: ['0', '0'], want: { offset: 0n, limit: 0 } }],
    ['largest limit', { given: ['5', '2000'], want: { offset: 5n, limit: 2000 } }],
    ['largest offset exactly', { given: ['9223372036854775807', '1'], want: { offset: 9223372036854775807n, limit: 1 } }],
    ['2^53 + 1 exactly', { given: ['9007199254740993', '1'], want: { offset: 9007199254740993n, limit: 1 } }],
    ['leading zeros', { given: ['007', '010'], want: { offset: 7n, limit: 10 } }],
  ];
  for (const [name, { given, want }] of accepted) {
    test(`accepts ${name}`, () => assert.deepEqual(parsePageRequest(...given), want));
  }

  const refused: [string, { given: [unknown, unknown]; want: string[] }][] = [
    ['offset 2^63', { given: ['9223372036854775808', undefined], want: ['/query/offset'] }],
    ['negative offset', { given: ['-1', undefined], want: ['/query/offset'] }],
    ['limit 2001', { given: [undefined, '2001'], want: ['/query/limit'] }],
    ['both bad', { given: ['x', '1.0'], want: ['/query/offset', '/query/limit'] }],
    ['array value', { given: [['1', '2'], undefined], want: ['/query/offset'] }],
    ['empty text', { given: ['', ''], want: ['/query/offset', '/query/limit'] }],
    ['spaces', { given: [' 1', '1 '], want: ['/query/offset', '/query/limit'] }],
  ];
  for (const [name, { given, want }] of refused) {
    test(`refuses ${name}`, () => {
      const result = parsePageRequest(...given);
      assert.ok(Array.isArray(result));
      assert.deepEqual(result.map((problem) => problem.pointer), want);
    });
  }

  test('every decimal integer in range round-trips exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_OFFSET }), (offset) => {
        assert.deepEqual(parsePageRequest(offset.toString(), '1'), { offset, limit: 1 });
      }),
      { numRuns: 2000 },
    );
  });

  test('every integer past the range is refused', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: MAX_OFFSET + 1n, max: MAX_OFFSET * 1000n }), (offset) => {
        assert.ok(Array.isArray(parsePageRequest(offset.toString(), undefined)));
      }),
    );
  });
});

describe('firstPosition', () => {
  test('positions up to 2^53 - 1 are exact; beyond, no store position exists', () => {
    assert.equal(firstPosition(0n), 0);
    assert.equal(firstPosition(9007199254740991n), 9007199254740991);
    assert.equal(firstPosition(9007199254740992n), undefined);
    assert.equal(firstPosition(MAX_OFFSET), undefined);
  });
});

describe('paging over a store of n records', () => {
  /** What a store of `total` records returns for (from, n): the positions that exist. */
  const rowsRead = (total: number, from: number, n: number) => Math.max(0, Math.min(total, from + n) - from);

  test('following next from any offset visits each later position exactly once, in order', () => {
    fc.assert(
      fc.property(fc.nat(500), fc.nat(520), fc.integer({ min: 1, max: 60 }), (total, start, limit) => {
        const visited: number[] = [];
        let offset: bigint | undefined = BigInt(start);
        let pages = 0;
        while (offset !== undefined) {
          const from = Number(offset);
          const outcome = pageOutcome({ offset, limit }, rowsRead(total, from, limit + 1));
          assert.ok(outcome.count <= limit);
          for (let i = 0; i < outcome.count; i += 1) visited.push(from + i);
          if (outcome.nextOffset !== undefined) assert.ok(outcome.count === limit, 'only full pages have a next');
          offset = outcome.nextOffset;
          pages += 1;
        }
        const expected = Array.from({ length: Math.max(0, total - start) }, (_, i) => start + i);
        assert.deepEqual(visited, expected);
        assert.equal(pages, Math.max(1, Math.ceil((total - start) / limit)));
      }),
      { numRuns: 500 },
    );
  });

  test('next is absent exactly when no record follows the page', () => {
    fc.assert(
      fc.property(fc.nat(300), fc.nat(320), fc.integer({ min: 1, max: 50 }), (total, from, limit) => {
        const outcome = pageOutcome({ offset: BigInt(from), limit }, rowsRead(total, from, limit + 1));
        assert.equal(outcome.nextOffset !== undefined, from + limit < total);
      }),
    );
  });
});
