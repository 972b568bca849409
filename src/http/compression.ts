import { constants } from 'node:zlib';
import compress from 'koa-compress';
import type { Middleware } from 'koa';

/** Answers smaller than this go out as they are: compressing them saves less than it costs. */
const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * `gzip` and `br`, negotiated by `Accept-Encoding` (br first when both are accepted), on answers
 * of a compressible type above the threshold, at the fastest levels (gzip 1, brotli quality 1:
 * a page is written at the speed it is read, not squeezed to the last byte). koa-compress (the
 * Koa project's own) pipes a stream body through node's zlib stream, so a streamed page stays
 * streamed with backpressure: no whole page is ever compressed in memory. No `deflate` (its
 * framing is ambiguous in practice) and no `zstd` (not in every Node this runs on).
 */
export function compression(): Middleware {
  return compress({
    threshold: COMPRESSION_THRESHOLD_BYTES,
    gzip: { level: 1 },
    br: { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } },
    deflate: false,
    zstd: false,
  } as compress.CompressOptions);
}
