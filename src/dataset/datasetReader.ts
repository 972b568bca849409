import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { none, type Many } from 'stream-chain/defs.js';
import { DatasetError } from '../domain/datasetError.js';
import { DATASET_FORMAT, SECTIONS, fieldPath, type ArraySection, type DatasetElement, type Section } from './datasetFormat.js';
import { ElementBuilder } from './elementBuilder.js';
import { StrictUtf8Decoder } from './strictUtf8.js';

/** Longest run of input without a complete token: bounds one string, number or key. */
export const MAX_VALUE_CHARS = 1024 * 1024;
/**
 * Text is handed to the tokenizer in pieces that end at a line break once they reach this
 * length. A piece the tokenizer refuses is lost whole, so a syntax error is placed at the
 * start of its piece: with one element per line (as `export` writes), at its element.
 */
const MIN_PIECE = 64;

export type ElementSink = (element: DatasetElement) => void;

/** The tokenizer as a function: text in (`none` at the end), tokens out (`none` when no token is complete). */
export type Tokenizer = (text: string | typeof none) => Many<Token> | typeof none;

/** stream-json's tokenizer as a function (see {@link Tokenizer}). */
export const newTokenizer = (): Tokenizer => jsonParser({ streamValues: false }) as Tokenizer;

/** The tokens of `text` (`none` while no token is complete), or `refused` with why it is not JSON. */
export function tokensOf(tokenize: Tokenizer, text: string | typeof none, refused: (reason: string) => never): Many<Token> | typeof none {
  try {
    return tokenize(text);
  } catch (error) {
    return refused((error as Error).message.replace(/^Parser (cannot parse input: |has )/, ''));
  }
}

type State =
  | 'root'
  | 'sectionKey'
  | 'sectionValue'
  | 'elements'
  | 'element'
  | 'tableKey'
  | 'tableValue'
  | 'recordsStart'
  | 'records'
  | 'record'
  | 'done';

/**
 * Reads a dataset from a stream of bytes and hands each element to `sink` as soon as its last
 * token arrives: the file is never held whole, only the element being read. The text is
 * tokenized by stream-json and checked as strict UTF-8. The structure (an object, sections in
 * order, arrays where arrays belong, a table's `records` last) is checked here; elements are
 * checked by the sink. Any problem throws a {@link DatasetError} naming the JSON path.
 *
 * `onChunk` is called (and awaited) after each chunk with the number of bytes read so far: for
 * progress, and for a consumer that hands elements on in batches to wait for room.
 */
export async function readDataset(
  input: AsyncIterable<Buffer | string>,
  sink: ElementSink,
  onChunk?: (bytesRead: number) => void | Promise<void>,
): Promise<void> {
  const decoder = new StrictUtf8Decoder();
  const reader = new DatasetReader(sink);
  let bytesRead = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const { text, invalidAt } = decoder.decode(bytes);
    reader.write(text);
    if (invalidAt !== undefined) reader.fail(`is not valid UTF-8 (byte ${invalidAt} of the input)`);
    bytesRead += bytes.length;
    await onChunk?.(bytesRead);
  }
  const { invalidAt } = decoder.end();
  if (invalidAt !== undefined) reader.fail(`is not valid UTF-8 (the input ends inside a character)`);
  reader.end();
}

/** The structure of a dataset over the parser's tokens (see {@link readDataset}). */
class DatasetReader {
  private readonly tokenize = newTokenizer();
  private readonly builder = new ElementBuilder();
  private state: State = 'root';
  private section: Section | undefined;
  private index = 0;
  private tableKey: string | undefined;
  private table: Record<string, unknown> = {};
  private tableHeaderSent = false;
  private recordIndex = 0;
  private charsWithoutToken = 0;

  constructor(private readonly sink: ElementSink) {}

  /** Reads the next piece of text. */
  write(text: string): void {
    let start = 0;
    while (start < text.length) {
      const lineEnd = text.indexOf('\n', start + MIN_PIECE);
      const end = lineEnd === -1 ? text.length : lineEnd + 1;
      this.tokenizeAndFeed(text.slice(start, end));
      start = end;
    }
  }

  /** The input has ended: anything left open is an error. */
  end(): void {
    this.tokenizeAndFeed(none);
    if (this.state !== 'done') this.fail('the input ends here, before the dataset does (is the file cut short?)');
  }

  /** Throws a {@link DatasetError} at the current place. */
  fail(reason: string): never {
    throw new DatasetError(this.path(), reason);
  }

  /** The JSON path of where the reader stands. */
  path(): string {
    switch (this.state) {
      case 'root':
      case 'sectionKey':
      case 'done':
        return '$';
      case 'sectionValue':
        return `$.${this.section!}`;
      case 'elements':
        return `$.${this.section!}[${this.index}]`;
      case 'element':
      case 'tableValue':
      case 'record':
        return this.builder.path();
      case 'tableKey':
        return `$.tables[${this.index}]`;
      case 'recordsStart':
        return `$.tables[${this.index}].records`;
      case 'records':
        return `$.tables[${this.index}].records[${this.recordIndex}]`;
    }
  }

  private tokenizeAndFeed(text: string | typeof none): void {
    const tokens = tokensOf(this.tokenize, text, (reason) =>
      this.fail(text === none ? `the input ends too early (${reason})` : `is not valid JSON (${reason})`),
    );
    if (tokens === none) {
      if (text !== none) this.charsWithoutToken += text.length;
      if (this.charsWithoutToken > MAX_VALUE_CHARS) this.fail(`holds a string, number or key longer than ${MAX_VALUE_CHARS} characters`);
      return;
    }
    this.charsWithoutToken = 0;
    for (const token of tokens.values) this.feed(token);
  }

  private feed(token: Token): void {
    switch (this.state) {
      case 'element':
      case 'record':
      case 'tableValue':
        if (this.builder.feed(token)) this.valueDone();
        return;
      case 'root':
        if (token.name !== 'startObject') this.fail(`must be an object (a dataset: {"format": "${DATASET_FORMAT}", ...})`);
        this.state = 'sectionKey';
        return;
      case 'sectionKey':
        return this.sectionKey(token);
      case 'sectionValue':
        return this.sectionValue(token);
      case 'elements':
        return this.elementStart(token);
      case 'tableKey':
        return this.tableKeyOrEnd(token);
      case 'recordsStart':
        if (token.name !== 'startArray') this.fail('must be an array');
        this.state = 'records';
        this.recordIndex = 0;
        return;
      case 'records':
        if (token.name === 'endArray') {
          this.state = 'tableKey';
          return;
        }
        return this.startValue('record', `$.tables[${this.index}].records[${this.recordIndex}]`, token);
      case 'done':
        return;
    }
  }

  private sectionKey(token: Token): void {
    if (token.name === 'endObject') {
      if (this.section === undefined) this.fail(`must start with "format": "${DATASET_FORMAT}"`);
      this.state = 'done';
      return;
    }
    if (token.name !== 'keyValue') return;
    const name = token.value as Section;
    const rank = SECTIONS.indexOf(name);
    if (this.section === undefined && name !== 'format') this.fail(`must start with "format": "${DATASET_FORMAT}"`);
    if (rank === -1) throw new DatasetError(fieldPath('$', name), `is not a section of a dataset (${SECTIONS.join(', ')})`);
    if (rank <= SECTIONS.indexOf(this.section!)) {
      throw new DatasetError(fieldPath('$', name), `comes after "${this.section!}": sections come once each, in the order ${SECTIONS.join(', ')}`);
    }
    this.section = name;
    this.state = 'sectionValue';
  }

  private sectionValue(token: Token): void {
    if (this.section === 'format') return this.startValue('element', '$.format', token);
    if (token.name !== 'startArray') this.fail('must be an array');
    this.index = 0;
    this.state = 'elements';
  }

  private elementStart(token: Token): void {
    if (token.name === 'endArray') {
      this.state = 'sectionKey';
      return;
    }
    if (this.section !== 'tables') return this.startValue('element', `$.${this.section!}[${this.index}]`, token);
    if (token.name !== 'startObject') this.fail('must be object');
    this.table = {};
    this.tableHeaderSent = false;
    this.state = 'tableKey';
  }

  private tableKeyOrEnd(token: Token): void {
    if (token.name === 'endObject') {
      this.sendTableHeader();
      this.index += 1;
      this.state = 'elements';
      return;
    }
    if (token.name !== 'keyValue') return;
    const path = fieldPath(`$.tables[${this.index}]`, token.value);
    if (Object.hasOwn(this.table, token.value) || (this.tableHeaderSent && token.value === 'records')) {
      throw new DatasetError(path, 'is given twice');
    }
    if (this.tableHeaderSent) throw new DatasetError(path, 'must come before "records"');
    if (token.value === 'records') {
      this.sendTableHeader();
      this.state = 'recordsStart';
      return;
    }
    this.tableKey = token.value;
    this.state = 'tableValue';
    this.builder.reset(path);
  }

  private sendTableHeader(): void {
    if (this.tableHeaderSent) return;
    this.tableHeaderSent = true;
    this.sink({ kind: 'tables', index: this.index, value: this.table });
  }

  private startValue(state: 'element' | 'record', path: string, token: Token): void {
    this.state = state;
    this.builder.reset(path);
    if (this.builder.feed(token)) this.valueDone();
  }

  /** The builder has completed a value: hand it on and move past it. */
  private valueDone(): void {
    const value = this.builder.value;
    if (this.state === 'tableValue') {
      Object.defineProperty(this.table, this.tableKey!, { value, enumerable: true, writable: true, configurable: true });
      this.state = 'tableKey';
    } else if (this.state === 'record') {
      this.sink({ kind: 'table_records', table: this.index, index: this.recordIndex, value });
      this.recordIndex += 1;
      this.state = 'records';
    } else if (this.section === 'format') {
      this.sink({ kind: 'format', value });
      this.state = 'sectionKey';
    } else {
      this.sink({ kind: this.section as ArraySection, index: this.index, value });
      this.index += 1;
      this.state = 'elements';
    }
  }
}
