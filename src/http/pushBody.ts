import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { none } from 'stream-chain/defs.js';
import type { Token } from 'stream-json/core/parser.js';
import { newTokenizer, tokensOf } from '../dataset/datasetReader.js';
import { ElementBuilder } from '../dataset/elementBuilder.js';
import { StrictUtf8Decoder } from '../dataset/strictUtf8.js';
import { DatasetError } from '../domain/datasetError.js';
import { LINES_PER_CHUNK } from '../store/vocabulary/writeShapes.js';
import { assertJsonBody } from './jsonBody.js';
import { problems } from './problems.js';

/** A push's body as read: its lines as JSON array texts of up to 1000 lines each, their number, and a hash of them. */
export interface PushBody {
  readonly lines: number;
  readonly staged: string[];
  readonly digest: string;
}

/**
 * Reads the body of `POST /v1/tables/{data_table_key}/records/bulk` as a stream, up to `limit`
 * bytes (`413` past it, as soon as it is known): `{"data": [record, ...]}`, each record
 * assembled from stream-json's tokens and kept only as its JSON text, in chunks of lines. The
 * body is never held whole, and the records never as objects all at once. Every constraint of
 * the contract's `TableRecordsPushBody` is checked here, with pointers (`400`); what a record
 * holds is the import's to check.
 */
export async function readPushBody(ctx: Context, limit: number): Promise<PushBody> {
  assertJsonBody(ctx);
  if (Number(ctx.get('Content-Length') || 0) > limit) throw problems.payloadTooLarge(limit);
  const decoder = new StrictUtf8Decoder();
  const reader = new PushReader();
  let bytes = 0;
  try {
    // Not destroyed when the reading stops early (a 413, a 400): the answer must still reach the client (linger.ts).
    for await (const chunk of ctx.req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > limit) throw problems.payloadTooLarge(limit);
      const { text, invalidAt } = decoder.decode(chunk);
      reader.write(text);
      if (invalidAt !== undefined) throw invalid('', 'is not valid UTF-8');
    }
  } catch (error) {
    if (error instanceof DatasetError) throw invalid(reader.pointer(), error.message.replace(/^.*?: /, ''));
    if ((error as { code?: string }).code === 'ECONNRESET' || (error as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') {
      throw problems.badRequest([{ pointer: '', message: 'the request body could not be read' }]);
    }
    throw error;
  }
  if (decoder.end().invalidAt !== undefined) throw invalid('', 'is not valid UTF-8');
  return reader.end();
}

const invalid = (pointer: string, message: string) => problems.badRequest([{ pointer, message }]);

type State = 'root' | 'key' | 'dataStart' | 'records' | 'record' | 'done';

/** The envelope over the parser's tokens: one object whose only property is `data`, an array of objects. */
class PushReader {
  private readonly tokenize = newTokenizer();
  private readonly builder = new ElementBuilder();
  private readonly hash = createHash('sha256');
  private readonly staged: string[] = [];
  private chunk: string[] = [];
  private state: State = 'root';
  private index = 0;
  private sawData = false;

  write(text: string): void {
    this.feedAll(text);
  }

  end(): PushBody {
    this.feedAll(none);
    if (this.state !== 'done') throw invalid('', 'is not valid JSON (the body ends too early)');
    if (!this.sawData) throw invalid('', "must have required property 'data'");
    if (this.chunk.length > 0) this.staged.push(`[${this.chunk.join(',')}]`);
    return { lines: this.index, staged: this.staged, digest: this.hash.digest('base64url') };
  }

  /** Where the reader stands, as a JSON pointer of the body. */
  pointer(): string {
    return this.state === 'records' || this.state === 'record' ? `/data/${this.index}` : this.state === 'dataStart' ? '/data' : '';
  }

  private feedAll(text: string | typeof none): void {
    const tokens = tokensOf(this.tokenize, text, (reason) => {
      throw invalid(this.pointer(), `is not valid JSON (${reason})`);
    });
    if (tokens === none) return;
    for (const token of tokens.values) this.feed(token);
  }

  private feed(token: Token): void {
    switch (this.state) {
      case 'root':
        if (token.name !== 'startObject') throw invalid('', 'must be an object {"data": [...]}');
        this.state = 'key';
        return;
      case 'key':
        if (token.name === 'endObject') this.state = 'done';
        else if (token.name === 'keyValue') {
          if (token.value !== 'data') throw invalid(`/${token.value}`, 'is not allowed (the body holds "data" only)');
          if (this.sawData) throw invalid('/data', 'is given twice');
          this.sawData = true;
          this.state = 'dataStart';
        }
        return;
      case 'dataStart':
        if (token.name !== 'startArray') throw invalid('/data', 'must be array');
        this.state = 'records';
        return;
      case 'records':
        if (token.name === 'endArray') {
          this.state = 'key';
          return;
        }
        if (token.name !== 'startObject') throw invalid(`/data/${this.index}`, 'must be object');
        this.state = 'record';
        this.builder.reset(`$.data[${this.index}]`);
        this.builder.feed(token);
        return;
      case 'record':
        if (this.builder.feed(token)) this.recordDone();
        return;
      case 'done':
        return;
    }
  }

  private recordDone(): void {
    const text = JSON.stringify(this.builder.value);
    this.hash.update(text).update('\n');
    this.chunk.push(text);
    if (this.chunk.length === LINES_PER_CHUNK) {
      this.staged.push(`[${this.chunk.join(',')}]`);
      this.chunk = [];
    }
    this.index += 1;
    this.state = 'records';
  }
}
