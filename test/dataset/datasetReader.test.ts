import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { DATASET_FORMAT, type DatasetElement } from '../../src/dataset/datasetFormat.js';
import { MAX_VALUE_CHARS, readDataset } from '../../src/dataset/datasetReader.js';
import { DatasetError } from '../../src/domain/datasetError.js';

const EXAMPLE = readFileSync(new URL('../fixtures/dataset.example.json', import.meta.url));
const HEAD = `{"format":"${DATASET_FORMAT}"`;

/** The input as chunks of `size` bytes (the last one shorter). */
function* chunksOf(bytes: Buffer, size: number): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function elementsOf(input: Iterable<Buffer>): Promise<DatasetElement[]> {
  const elements: DatasetElement[] = [];
  await readDataset(toAsync(input), (element) => elements.push(element));
  return elements;
}

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

/** The DatasetError that reading `text` throws. */
async function readingError(input: string | Buffer): Promise<DatasetError> {
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  const error = await readDataset(toAsync(chunksOf(bytes, 65_536)), () => {}).then(
    () => assert.fail('the input was read without an error'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof DatasetError, String(error));
  return error;
}

/** What the example holds, computed with JSON.parse: the elements the reader must give. */
function expectedElements(json: Record<string, unknown>): DatasetElement[] {
  const expected: DatasetElement[] = [{ kind: 'format', value: json.format }];
  for (const section of ['metrics', 'dimensions', 'users', 'group_attributions', 'manager_attributions', 'reporting'] as const) {
    for (const [index, value] of ((json[section] ?? []) as unknown[]).entries()) expected.push({ kind: section, index, value });
  }
  for (const [table, { records, ...header }] of ((json.tables ?? []) as { records?: unknown[] }[]).entries()) {
    expected.push({ kind: 'tables', index: table, value: header });
    for (const [index, value] of (records ?? []).entries()) expected.push({ kind: 'table_records', table, index, value });
  }
  return expected;
}

describe('readDataset', () => {
  test('gives every element of the example, in file order, as JSON.parse reads it', async () => {
    assert.deepEqual(await elementsOf([EXAMPLE]), expectedElements(JSON.parse(EXAMPLE.toString('utf8'))));
  });

  test('gives the same elements however the bytes are cut into chunks', async () => {
    const whole = await elementsOf([EXAMPLE]);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4096 }), async (size) => {
        assert.deepEqual(await elementsOf(chunksOf(EXAMPLE, size)), whole);
      }),
      { numRuns: 40 },
    );
  });

  test('takes a byte-order mark, whitespace anywhere, and empty or missing sections', async () => {
    const text = `\uFEFF \n${HEAD} , "users" : [ ] ,\n"tables":[{"key":"t","name":"T","fields":[]}] }\n`;
    assert.deepEqual(await elementsOf([Buffer.from(text)]), [
      { kind: 'format', value: DATASET_FORMAT },
      { kind: 'tables', index: 0, value: { key: 't', name: 'T', fields: [] } },
    ]);
  });

  const user = '{"id":"u1","email":"a@b.example","name":"A","role":"R","currency":"EUR","calculation_currency":"EUR","country":"FR","code":"C"}';
  const errors: [string, { input: string | Buffer; path: string; reason: RegExp }][] = [
    ['an array at the top', { input: '[]', path: '$', reason: /must be an object/ }],
    ['a string at the top', { input: '"dataset"', path: '$', reason: /must be an object/ }],
    ['an empty input', { input: '', path: '$', reason: /ends/ }],
    ['an empty object', { input: '{}', path: '$', reason: /must start with "format"/ }],
    ['a section before format', { input: '{"users":[],"format":"x"}', path: '$', reason: /must start with "format"/ }],
    ['an unknown section', { input: `${HEAD},"people":[]}`, path: '$.people', reason: /is not a section/ }],
    ['sections out of order', { input: `${HEAD},"users":[],"metrics":[]}`, path: '$.metrics', reason: /comes after "users"/ }],
    ['a section twice', { input: `${HEAD},"users":[],"users":[]}`, path: '$.users', reason: /comes after "users"/ }],
    ['a section that is not an array', { input: `${HEAD},"users":{}}`, path: '$.users', reason: /must be an array/ }],
    ['a cut-off file', { input: `${HEAD},"users":[${user},{"id":"u2","na`, path: '$.users[1]', reason: /ends/ }],
    ['a file cut after a value', { input: `${HEAD},"users":[${user}`, path: '$.users[1]', reason: /ends/ }],
    ['text after the dataset', { input: `${HEAD}} {}`, path: '$', reason: /not valid JSON/ }],
    ['a syntax error inside an element', { input: `${HEAD},"users":[${user},\n{"id":"u2",}]}`, path: '$.users[1]', reason: /not valid JSON/ }],
    ['a key given twice', { input: `${HEAD},"users":[{"id":"a","id":"b"}]}`, path: '$.users[0].id', reason: /given twice/ }],
    ['a number past the double range', { input: `${HEAD},"reporting":[{"payment":1e400}]}`, path: '$.reporting[0].payment', reason: /out of range/ }],
    ['nesting too deep', { input: `${HEAD},"reporting":[{"x":${'['.repeat(40)}`, path: '$.reporting[0].x' + '[0]'.repeat(15), reason: /nested deeper/ }],
    ['a table key after its records', { input: `${HEAD},"tables":[{"key":"t","records":[],"name":"T"}]}`, path: '$.tables[0].name', reason: /before "records"/ }],
    ['records that are not an array', { input: `${HEAD},"tables":[{"key":"t","records":{}}]}`, path: '$.tables[0].records', reason: /must be an array/ }],
    ['a cut-off table record', { input: `${HEAD},"tables":[{"key":"t","records":[{"id":"1"},{"id":`, path: '$.tables[0].records[1].id', reason: /ends/ }],
    [
      'a 10 MB string',
      { input: `${HEAD},"users":[{"id":"u1","name":"${'x'.repeat(10 * 1024 * 1024)}"}]}`, path: '$.users[0].name', reason: new RegExp(`longer than ${MAX_VALUE_CHARS}`) },
    ],
    [
      'invalid UTF-8 in a string',
      { input: Buffer.concat([Buffer.from(`${HEAD},"users":[${user},{"id":"u2","name":"Zo`), Buffer.from([0xc3, 0x28]), Buffer.from('"}]}')]), path: '$.users[1].name', reason: /not valid UTF-8/ },
    ],
    [
      'an encoded surrogate',
      { input: Buffer.concat([Buffer.from(`${HEAD},"users":[{"name":"`), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}]}')]), path: '$.users[0].name', reason: /not valid UTF-8/ },
    ],
    [
      'a character cut off by the end',
      { input: Buffer.concat([Buffer.from(`${HEAD},"users":[{"name":"`), Buffer.from([0xe2, 0x9c])]), path: '$.users[0].name', reason: /not valid UTF-8/ },
    ],
  ];
  for (const [name, { input, path, reason }] of errors) {
    test(`refuses ${name}, naming where`, async () => {
      const error = await readingError(input);
      assert.equal(error.path, path, error.message);
      assert.match(error.reason, reason);
      assert.equal(error.message, `${error.path}: ${error.reason}`);
      assert.doesNotMatch(error.message, /\n/);
    });
  }

  test('a multi-byte character split across chunks is read whole', async () => {
    const text = Buffer.from(`${HEAD},"users":[{"name":"Zoë ✓ 𝄞"}]}`);
    for (let size = 1; size <= 8; size += 1) {
      const elements = await elementsOf(chunksOf(text, size));
      assert.deepEqual(elements[1]?.value, { name: 'Zoë ✓ 𝄞' }, `chunks of ${size}`);
    }
  });
});
