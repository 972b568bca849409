import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeCursor, readCursor, type CursorReading } from '../../src/domain/cursor.js';

test('readCursor', async (t) => {
  const issued = encodeCursor(40n, '[["user","a@b.c"]]', '["a@b.c","region",24312,7]');
  const cases: [string, { given: [string, bigint, string]; want: CursorReading }][] = [
    ['the key, for the offset and scope it was issued for', { given: [issued, 40n, '[["user","a@b.c"]]'], want: { kind: 'key', key: '["a@b.c","region",24312,7]' } }],
    ['stale: another offset', { given: [issued, 41n, '[["user","a@b.c"]]'], want: { kind: 'stale' } }],
    ['stale: other filters', { given: [issued, 40n, '[]'], want: { kind: 'stale' } }],
    ['malformed: not base64url', { given: ['a+b/c=', 40n, '[]'], want: { kind: 'malformed' } }],
    ['malformed: not JSON', { given: [Buffer.from('nope').toString('base64url'), 40n, '[]'], want: { kind: 'malformed' } }],
    ['malformed: wrong shape', { given: [Buffer.from('["40","[]"]').toString('base64url'), 40n, '[]'], want: { kind: 'malformed' } }],
    ['malformed: numbers instead of texts', { given: [Buffer.from('[40,"[]","k"]').toString('base64url'), 40n, '[]'], want: { kind: 'malformed' } }],
    ['malformed: empty', { given: ['', 40n, '[]'], want: { kind: 'malformed' } }],
  ];
  for (const [name, { given, want }] of cases) await t.test(name, () => assert.deepEqual(readCursor(...given), want));
});

test('a cursor keeps offsets past 2^53 exact', () => {
  const offset = 9223372036854775806n;
  assert.deepEqual(readCursor(encodeCursor(offset, '', 'k'), offset, ''), { kind: 'key', key: 'k' });
  assert.deepEqual(readCursor(encodeCursor(offset, '', 'k'), offset + 1n, ''), { kind: 'stale' });
});
