import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { StrictUtf8Decoder, firstInvalidByte } from '../../src/dataset/strictUtf8.js';

/**
 * The offset of the first invalid byte as the WHATWG decoder sees it: the end of the longest
 * prefix that decodes (a character cut off by the end of the input is invalid).
 */
function referenceFirstInvalid(bytes: Uint8Array): number {
  const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  for (let n = bytes.length; n > 0; n -= 1) {
    try {
      fatal.decode(bytes.subarray(0, n));
      return n;
    } catch {
      // a shorter prefix, then
    }
  }
  return 0;
}

describe('strict UTF-8', () => {
  test('firstInvalidByte agrees with the WHATWG decoder on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (bytes) => {
        const buffer = Buffer.from(bytes);
        assert.equal(firstInvalidByte(buffer, buffer.length), referenceFirstInvalid(bytes));
      }),
      { numRuns: 3000 },
    );
  });

  test('text cut anywhere into chunks decodes to itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.array(fc.nat(60), { maxLength: 6 }), (text, cuts) => {
        const bytes = Buffer.from(text, 'utf8');
        const decoder = new StrictUtf8Decoder();
        let decoded = '';
        let at = 0;
        for (const cut of [...cuts].sort((a, b) => a - b).filter((c) => c <= bytes.length)) {
          const part = decoder.decode(bytes.subarray(at, cut));
          assert.equal(part.invalidAt, undefined);
          decoded += part.text;
          at = cut;
        }
        const last = decoder.decode(bytes.subarray(at));
        assert.equal(last.invalidAt, undefined);
        assert.equal(decoder.end().invalidAt, undefined);
        assert.equal(decoded + last.text, text.startsWith('\uFEFF') ? text.slice(1) : text);
      }),
      { numRuns: 1000 },
    );
  });

  test('reports the offset of the first bad byte in the whole input', () => {
    const decoder = new StrictUtf8Decoder();
    assert.deepEqual(decoder.decode(Buffer.from('abc\xc3', 'latin1')), { text: 'abc' });
    assert.deepEqual(decoder.decode(Buffer.from([0xa9, 0x41, 0xff, 0x42])), { text: 'éA', invalidAt: 6 });
    const cut = new StrictUtf8Decoder();
    cut.decode(Buffer.from([0x41, 0xe2, 0x9c]));
    assert.deepEqual(cut.end(), { text: '', invalidAt: 1 });
  });
});
