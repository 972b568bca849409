import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * docs/conformance.md against the tests: each row of its tables names a test (a file, then `›`,
 * then the test's title) that carries the row's id as `[conf:<id>]` in its title, or is pending.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const THIS_FILE = 'test/docs/conformance.test.ts';

type Row = { line: number; id: string; status: string; test: { file: string; title: string } | undefined };

const STATUS = /^(?:(same|stricter|looser|beyond|differs)\b|(pending): \S)/;
const ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const NO_TEST = '—';

/** The rows of the tables of the page: `| `id` | reference | status — words | `file` › title |`. */
function rowsOf(text: string): Row[] {
  return text.split('\n').flatMap((content, index): Row[] => {
    const line = index + 1;
    if (!content.startsWith('|') || /^\|[-| ]+\|$/.test(content) || content.startsWith('| id |')) return [];
    const cells = content.slice(1, -1).split(' | ').map((cell) => cell.trim());
    assert.equal(cells.length, 4, `docs/conformance.md:${line}: a row has four cells: ${content}`);
    const [idCell, , statusCell, testCell] = cells as [string, string, string, string];
    const id = /^`([^`]+)`$/.exec(idCell)?.[1];
    assert.ok(id !== undefined && ID.test(id), `docs/conformance.md:${line}: the id is a lower-case word list in backquotes: ${idCell}`);
    const status = STATUS.exec(statusCell);
    assert.ok(status, `docs/conformance.md:${line}: the status is one of same, stricter, looser, beyond, differs or pending: <reason>: ${statusCell}`);
    if (testCell === NO_TEST) return [{ line, id, status: status[1] ?? status[2]!, test: undefined }];
    const named = /^`([^`]+)` › (.+)$/.exec(testCell);
    assert.ok(named, `docs/conformance.md:${line}: the test is \`file\` › title, or ${NO_TEST}: ${testCell}`);
    return [{ line, id, status: status[1] ?? status[2]!, test: { file: named[1]!, title: named[2]! } }];
  });
}

const CONF = /\[conf:([^\]]*)\]/g;

/**
 * The titles of the `test(...)` and `it(...)` calls of a test file written as string literals
 * ('...', "..." or `...` without `${}`): a title that carries an id must be one of them.
 */
function titlesOf(source: string): string[] {
  const literals = source.matchAll(/\b(?:test|it)\(\s*(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\$]|\\.|\$(?!\{))*)`)/g);
  return [...literals].map((match) => (match[1] ?? match[2] ?? match[3]!).replace(/\\(.)/g, '$1'));
}

/** A title without its `[conf:...]` ids, as the page names it. */
const bareTitle = (title: string) => title.replace(/ ?\[conf:[^\]]*\]/g, '');

/** Every fault of the page against the test files, one line each (none: the page is true). */
function faultsOf(rows: Row[], readTest: (file: string) => string | undefined, testFiles: string[]): string[] {
  const faults: string[] = [];
  const rowOf = new Map<string, Row>();
  for (const row of rows) {
    const where = `docs/conformance.md:${row.line} (${row.id})`;
    const first = rowOf.get(row.id);
    if (first) faults.push(`${where}: the id is also the id of the row on line ${first.line}`);
    else rowOf.set(row.id, row);
    if (row.test === undefined) {
      if (row.status !== 'pending') faults.push(`${where}: a row that is not pending names its test`);
      continue;
    }
    const source = readTest(row.test.file);
    if (source === undefined) {
      faults.push(`${where}: no test file ${row.test.file}`);
      continue;
    }
    const titles = titlesOf(source).filter((title) => bareTitle(title) === row.test!.title);
    if (titles.length === 0) faults.push(`${where}: no test titled "${row.test.title}" in ${row.test.file}`);
    else if (!titles.some((title) => title.includes(`[conf:${row.id}]`))) {
      faults.push(`${where}: the title of "${row.test.title}" in ${row.test.file} does not carry [conf:${row.id}]`);
    }
  }
  for (const file of testFiles) {
    for (const match of (readTest(file) ?? '').matchAll(CONF)) {
      if (!rowOf.has(match[1]!)) faults.push(`${file}: [conf:${match[1]}] is the id of no row of docs/conformance.md`);
    }
  }
  return faults;
}

const tracked = execFileSync('git', ['ls-files', 'test'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
const testFiles = tracked.filter((path) => path.endsWith('.ts') && path !== THIS_FILE && existsSync(join(ROOT, path)));
const readTest = (file: string) => (existsSync(join(ROOT, file)) && file.startsWith('test/') ? read(file) : undefined);

describe('docs/conformance.md', () => {
  const rows = rowsOf(read('docs/conformance.md'));

  test('has its rows read (a check of the reading itself)', () => {
    assert.ok(rows.length > 50);
    assert.ok(rows.some((row) => row.id === 'users-max-200' && row.test?.file === 'test/http/upsertUsersBulk.test.ts'));
    assert.ok(rows.some((row) => row.id === 'webhook-setup' && row.status === 'differs' && row.test?.file === 'test/http/adminWebhooks.test.ts'));
  });

  test('names tests that exist and carry its ids; each id is one row; every [conf:] id of a test is a row', () => {
    assert.deepEqual(faultsOf(rows, readTest, testFiles), []);
  });

  test('the check fails on a page or a test that disagree', () => {
    const file = 'test/http/example.test.ts';
    const source = `test('a bulk PUT of 201 users is a 400 [conf:a-row]', async () => {});\ntest(\`two [conf:b-row]\`, () => {});\nit("three [conf:gone]", () => {});\n`;
    const page = (cells: string[]) => rowsOf(['| id | the hosted reference | compdata | pinned by |', '|---|---|---|---|', ...cells].join('\n'));
    const good = [`| \`a-row\` | ref | same — words | \`${file}\` › a bulk PUT of 201 users is a 400 |`, `| \`b-row\` | ref | beyond | \`${file}\` › two |`, `| \`gone\` | ref | pending: issue in progress | ${NO_TEST} |`];
    const faults = (cells: string[], text = source) => faultsOf(page(cells), (path) => (path === file ? text : undefined), [file]);
    assert.deepEqual(faults(good), []);
    const broken: [string, string[], string?][] = [
      ['a file that does not exist', [good[0]!.replace(file, 'test/http/nope.test.ts'), good[1]!, good[2]!]],
      ['a title that does not exist', [good[0]!.replace('201 users', '202 users'), good[1]!, good[2]!]],
      ['a title without the id', [good[0]!, good[1]!.replace('b-row', 'c-row'), good[2]!]],
      ['an id of two rows', [...good, good[0]!.replace('same', 'looser')]],
      ['an id of a test that no row has', [good[0]!, good[1]!]],
      ['a row with no test that is not pending', [...good, `| \`d-row\` | ref | same | ${NO_TEST} |`]],
      ['a title written with ${}', good, source.replace('`two', '`${"two"}')],
    ];
    for (const [what, cells, text] of broken) assert.notDeepEqual(faults(cells, text), [], what);
    assert.throws(() => page(['| `e-row` | ref | fine | — |']), /the status is one of/);
  });
});
