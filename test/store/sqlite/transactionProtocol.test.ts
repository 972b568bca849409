import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withBuffers } from '../../../src/store/sqlite/transactionProtocol.js';

/** What crosses to or from the transaction thread is cloned: a `Buffer` arrives as a plain `Uint8Array`. */
const crossed = (value: unknown) => structuredClone(value);

const CASES: [string, { given: unknown; want: unknown }][] = [
  ['a buffer', { given: Buffer.from('secret'), want: Buffer.from('secret') }],
  ['a buffer in an object in an array', { given: [{ dataset: Buffer.from([1, 2, 3]), recipe: '{}' }], want: [{ dataset: Buffer.from([1, 2, 3]), recipe: '{}' }] }],
  ['no bytes', { given: { id: 1, names: ['a', 'b'], origin: null }, want: { id: 1, names: ['a', 'b'], origin: null } }],
  ['undefined', { given: undefined, want: undefined }],
];

for (const [name, { given, want }] of CASES) {
  test(`withBuffers: ${name} comes back as it was sent`, () => {
    const back = withBuffers(crossed(given));
    assert.deepEqual(back, want);
    if (Buffer.isBuffer(want)) assert.ok(Buffer.isBuffer(back), 'a Buffer again, not a Uint8Array');
    if (Array.isArray(want)) assert.ok(Buffer.isBuffer((back as { dataset: unknown }[])[0]!.dataset));
  });
}

test('withBuffers: what holds no bytes is returned as it is, not copied', () => {
  const rows = crossed([{ id: 'r1', pos: 0 }, { id: 'r2', pos: 1 }]);
  assert.equal(withBuffers(rows), rows);
});
