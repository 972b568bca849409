import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { AFTER_ALL, encodeSyncToken, readSyncToken, resumeBounds, START, type ChangePosition } from '../../src/domain/syncToken.js';

const key = fc.integer({ min: 0, max: 50 });
const position = fc.record({ stamp: key, stream: fc.constantFrom(0, 1, 2), a: key, b: key, c: key });
/** A record as a stream returns it: dimension-fields rows (0) carry user, month, position; record rows (1) a position. */
const row = fc.oneof(
  fc.record({ stamp: key, stream: fc.constant(0 as const), a: key, b: key, c: key }),
  fc.record({ stamp: key, stream: fc.constant(1 as const), a: key, b: fc.constant(0), c: fc.constant(0) }),
);

/** The change order, written out: stamp, then stream, then the stream's keys. */
const after = (x: ChangePosition, y: ChangePosition) => (x.stamp - y.stamp || x.stream - y.stream || x.a - y.a || x.b - y.b || x.c - y.c) > 0;
const rowValueAfter = (values: number[], bound: number[]) => {
  const at = values.findIndex((value, i) => value !== bound[i]);
  return at !== -1 && values[at]! > bound[at]!;
};

describe('sync tokens', () => {
  test('a token reads back as its position, for its tenant and listing only', () => {
    fc.assert(
      fc.property(position, fc.nat(), (p, tenant) => {
        const token = encodeSyncToken(tenant, 'reporting', p);
        assert.deepEqual(readSyncToken(token, tenant, 'reporting'), { kind: 'position', position: { ...p }, fromStart: false });
        assert.equal(readSyncToken(token, tenant + 1, 'reporting').kind, 'malformed');
        assert.equal(readSyncToken(token, tenant, 'table:deals').kind, 'malformed');
      }),
    );
  });

  const malformed: [string, string][] = [
    ['not base64url', 'a b'],
    ['not JSON', Buffer.from('{').toString('base64url')],
    ['too short', Buffer.from('[1,1,"reporting",1,2,0,0]').toString('base64url')],
    ['another version', Buffer.from('[2,1,"reporting",1,2,0,0,0]').toString('base64url')],
    ['a stream that is none', Buffer.from('[1,1,"reporting",1,3,0,0,0]').toString('base64url')],
    ['a negative stamp', Buffer.from('[1,1,"reporting",-1,2,0,0,0]').toString('base64url')],
    ['a fraction', Buffer.from('[1,1,"reporting",1.5,2,0,0,0]').toString('base64url')],
    ['past 2^53', Buffer.from('[1,1,"reporting",9007199254740993,2,0,0,0]').toString('base64url')],
    ['a text key', Buffer.from('[1,1,"reporting",1,2,"0",0,0]').toString('base64url')],
    ['00', '00'],
  ];
  for (const [name, text] of malformed) {
    test(`not a token: ${name}`, () => assert.equal(readSyncToken(text, 1, 'reporting').kind, 'malformed'));
  }

  test('0 starts before everything', () => {
    assert.deepEqual(readSyncToken('0', 7, 'table:x'), { kind: 'position', position: START, fromStart: true });
  });

  test("each stream resumes exactly at the rows after the position in change order (the streams' bounds as row values)", () => {
    fc.assert(
      fc.property(position, row, (p, r) => {
        const { fields, records } = resumeBounds(p);
        const passes = r.stream === 0 ? rowValueAfter([r.stamp, r.a, r.b, r.c], fields) : rowValueAfter([r.stamp, r.a], records);
        assert.equal(passes, after(r, p));
      }),
      { numRuns: 2000 },
    );
    assert.ok(AFTER_ALL > 50);
  });
});
