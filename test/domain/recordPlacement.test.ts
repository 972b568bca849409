import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RecordPlacement, type Placement } from '../../src/domain/recordPlacement.js';

describe('RecordPlacement', () => {
  const cases: [string, { stored: number; given: (number | undefined)[]; want: Placement[] }][] = [
    ['new ids on an empty store go 0, 1, 2', { stored: 0, given: [undefined, undefined, undefined], want: [{ pos: 0, isNew: true }, { pos: 1, isNew: true }, { pos: 2, isNew: true }] }],
    ['stored ids keep their place, new ones follow the stored', { stored: 10, given: [3, undefined, 9, undefined], want: [{ pos: 3, isNew: false }, { pos: 10, isNew: true }, { pos: 9, isNew: false }, { pos: 11, isNew: true }] }],
    ['a stored id given twice is a duplicate', { stored: 20, given: [17, 4, 17], want: [{ pos: 17, isNew: false }, { pos: 4, isNew: false }, 'duplicate'] }],
    ['an id added by this load and given again is a duplicate', { stored: 5, given: [undefined, 5], want: [{ pos: 5, isNew: true }, 'duplicate'] }],
    ['neighbouring bits are independent', { stored: 16, given: [7, 8, 6, 9, 8], want: [7, 8, 6, 9].map((pos) => ({ pos, isNew: false })).concat(['duplicate' as never]) }],
  ];
  for (const [name, { stored, given, want }] of cases) {
    test(name, () => {
      const placement = new RecordPlacement(stored);
      assert.deepEqual(given.map((pos) => placement.place(pos)), want);
      assert.equal(placement.count, stored + want.filter((p) => p !== 'duplicate' && p.isNew).length);
    });
  }

  test('looks ids up only when records were stored at the start', () => {
    assert.equal(new RecordPlacement(0).needsLookup, false);
    assert.equal(new RecordPlacement(1).needsLookup, true);
  });
});
