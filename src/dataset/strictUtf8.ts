import { isUtf8 } from 'node:buffer';

/** What one chunk of bytes decodes to: its text, and where the input stops being UTF-8, if it does. */
export interface DecodedChunk {
  /** The text up to the end of the chunk's last whole character, or up to the first bad byte. */
  text: string;
  /** Offset (in the whole input) of the first byte that is not UTF-8; absent while all is well. */
  invalidAt?: number;
}

/**
 * Decodes a byte stream as strict UTF-8, chunk by chunk: a character split across chunks is
 * held back until it is whole, and the first invalid byte (or a character cut off by the end
 * of the input) is reported with its offset instead of being replaced with U+FFFD, so that the
 * reader can say where it is. A byte-order mark at the start is dropped.
 */
export class StrictUtf8Decoder {
  private held: Buffer = Buffer.alloc(0);
  private offset = 0;
  private atStart = true;

  decode(chunk: Buffer): DecodedChunk {
    const bytes = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    const whole = wholeCharactersLength(bytes);
    let decoded: DecodedChunk;
    if (isUtf8(bytes.subarray(0, whole))) {
      decoded = { text: bytes.toString('utf8', 0, whole) };
      this.held = Buffer.from(bytes.subarray(whole));
    } else {
      const bad = firstInvalidByte(bytes, whole);
      decoded = { text: bytes.toString('utf8', 0, bad), invalidAt: this.offset + bad };
    }
    this.offset += whole;
    if (this.atStart && decoded.text.length > 0) {
      this.atStart = false;
      if (decoded.text.charCodeAt(0) === 0xfeff) decoded.text = decoded.text.slice(1);
    }
    return decoded;
  }

  /** Call at the end of the input: a character cut off by the end is invalid. */
  end(): DecodedChunk {
    return this.held.length > 0 ? { text: '', invalidAt: this.offset } : { text: '' };
  }
}

/** The length of `bytes` without a trailing, incomplete multi-byte character. */
function wholeCharactersLength(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i -= 1) {
    const byte = bytes[i]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    if (byte < 0xc0) return bytes.length; // ASCII ends a character
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return i + length > bytes.length ? i : bytes.length;
  }
  return bytes.length;
}

/** The offset of the first byte of `bytes` (before `limit`) that does not belong to a valid UTF-8 character. */
export function firstInvalidByte(bytes: Buffer, limit: number): number {
  let i = 0;
  while (i < limit) {
    const byte = bytes[i]!;
    if (byte < 0x80) {
      i += 1;
      continue;
    }
    const length = byte >= 0xc2 && byte <= 0xdf ? 2 : byte >= 0xe0 && byte <= 0xef ? 3 : byte >= 0xf0 && byte <= 0xf4 ? 4 : 0;
    if (length === 0 || i + length > limit) return i;
    const second = bytes[i + 1]!;
    // Overlong forms, surrogates and code points past U+10FFFF narrow the second byte's range.
    const low = byte === 0xe0 ? 0xa0 : byte === 0xf0 ? 0x90 : 0x80;
    const high = byte === 0xed ? 0x9f : byte === 0xf4 ? 0x8f : 0xbf;
    if (second < low || second > high) return i;
    for (let k = 2; k < length; k += 1) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += length;
  }
  return limit;
}
