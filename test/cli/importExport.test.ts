import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { DATASET_SCHEMA } from '../../src/dataset/datasetSchema.js';
import { generateSeed } from '../../src/dataset/generateSeed.js';
import { EXAMPLE_BYTES } from '../support/datasets.js';
import { runCli, runInProcess, temporaryDirectory, type CliResult } from './cliProcess.js';
import { databaseFor, onlyOn } from '../support/testDatabases.js';

const EXAMPLE_PATH = new URL('../fixtures/dataset.example.json', import.meta.url).pathname;

/**
 * Runs a command that must succeed, in this process (what the commands do is the subject here);
 * `run`: runCli for the binary, where reading standard input and writing standard output as
 * pipes is.
 */
async function compdata(args: string[], input?: string | Buffer, run: typeof runInProcess = runInProcess) {
  const result = await run(args, input);
  assert.equal(result.code, 0, result.stderr);
  return result;
}

/** One line on stderr naming `path`, nothing on stdout, exit code 1. */
function assertRefused(result: CliResult, path: string): void {
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^error: [^\n]+\n$/);
  assert.ok(result.stderr.startsWith(`error: ${path}: `), result.stderr);
}

describe('compdata import and export', { concurrency: true }, () => {
  test('seed -> export -> import into a fresh file -> export again: the same bytes', async (t) => {
    const directory = temporaryDirectory(t);
    const [seeded, loaded] = await Promise.all([databaseFor(t), databaseFor(t)]);
    const [first, second] = ['first.json', 'second.json'].map((name) => join(directory, name));
    await compdata(['seed', '--db', seeded, '--tenant', 'acme', '--users', '40', '--records', '3000', '--seed', 'trip']);
    const exported = await compdata(['export', '--db', seeded, '--tenant', 'acme', first!]);
    assert.match(exported.stdout, /^exported tenant acme of .* to .*first\.json: \d+ elements in [\d.]+s \(\d+ elements\/s\)\n$/);
    const imported = await compdata(['import', '--db', loaded, '--tenant', 'copy', first!]);
    assert.match(imported.stdout, /3000 reporting records \(3000 new, 0 updated\), \d+ statement statuses, 1 tables with 600 records, in/);
    await compdata(['export', '--db', loaded, '--tenant', 'copy', second!]);
    const bytes = readFileSync(first!);
    assert.ok(bytes.equals(readFileSync(second!)), 'the second export differs from the first');

    const dataset = JSON.parse(bytes.toString('utf8'));
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    assert.ok(ajv.validate(DATASET_SCHEMA, dataset), ajv.errorsText());
    const seed = generateSeed({ seed: 'trip', users: 40, records: 3000 });
    assert.deepEqual(dataset.users.map((u: { id: string }) => u.id).sort(), seed.users.map((u) => u.id).sort());
    assert.equal(dataset.group_attributions.length, seed.groupAttributions.length);
    assert.equal(dataset.manager_attributions.length, seed.managerAttributions.length);
    assert.deepEqual(dataset.reporting.map((r: { id: string }) => r.id), [...seed.reportingLines()].map((line) => line.id));
    assert.equal(dataset.tables[0].records.length, seed.tableRecordCount);
    assert.deepEqual(dataset.metrics, [{ key: 'new_arr' }, { key: 'services_revenue' }]);
    // Every statement (a user's lines of a month) with the seed's status of its month: the last month draft, the one before sent to payroll, older ones paid.
    const statements = new Set([...seed.reportingLines()].map((line) => `${line.user_id} ${line.date.slice(0, 7)}`));
    assert.equal(dataset.statements.length, statements.size);
    const statusOf = (month: string) => (month >= '2026-03' ? 'draft' : month === '2026-02' ? 'sent_to_payroll' : 'paid');
    for (const item of dataset.statements) assert.equal(item.status, statusOf(item.month), JSON.stringify(item));
    assert.deepEqual(new Set(dataset.statements.map((item: { status: string }) => item.status)), new Set(['paid', 'sent_to_payroll', 'draft']));
  });

  test('import reads standard input; export writes standard output', async (t) => {
    const path = await databaseFor(t);
    const imported = await compdata(['import', '--db', path, '--tenant', 'acme', '-'], EXAMPLE_BYTES, runCli);
    assert.match(imported.stdout, /^imported standard input into tenant acme of .*: 2 metrics, 2 dimensions, 3 users, 4 group and 2 manager attributions, 5 reporting records \(5 new, 0 updated\), 0 statement statuses, 2 tables with 3 records, in [\d.]+s \(\d+ elements\/s\)\n$/);
    const exported = await compdata(['export', '--db', path, '--tenant', 'acme'], undefined, runCli);
    assert.equal(exported.stderr, '');
    const again = await compdata(['export', '--db', path, '--tenant', 'acme', '-'], undefined, runCli);
    assert.equal(again.stdout, exported.stdout);
    const expected = JSON.parse(EXAMPLE_BYTES.toString('utf8'));
    const dataset = JSON.parse(exported.stdout);
    assert.deepEqual(dataset.reporting.map((r: { id: string }) => r.id), expected.reporting.map((r: { id: string }) => r.id));
    assert.deepEqual(dataset.tables[0].records.map((r: { id: string }) => r.id), expected.tables[0].records.map((r: { id: string }) => r.id));
  });

  const bad: [string, { edit: (text: Buffer) => Buffer; path: string }][] = [
    ['a truncated file', { edit: (text) => text.subarray(0, text.indexOf('"id":"r-4"') + 12), path: '$.reporting[3]' }],
    ['invalid UTF-8', { edit: (text) => Buffer.concat([text.subarray(0, text.indexOf('Lovelace')), Buffer.from([0xc0, 0xaf]), text.subarray(text.indexOf('Lovelace'))]), path: '$.users[0].name' }],
    ['a record with an unknown field', { edit: (text) => Buffer.from(text.toString().replace('"plan":"SDR 2025"', '"plan":"SDR 2025","bonus":3')), path: '$.reporting[4].bonus' }],
  ];
  test('bad files and input: exit 1, one line naming where, the database unchanged', async (t) => {
    const directory = temporaryDirectory(t);
    const db = await databaseFor(t);
    await compdata(['import', '--db', db, '--tenant', 'acme', EXAMPLE_PATH]);
    const before = (await compdata(['export', '--db', db, '--tenant', 'acme'])).stdout;
    for (const [name, { edit, path }] of bad) {
      const file = join(directory, `${name}.json`);
      writeFileSync(file, edit(EXAMPLE_BYTES));
      assertRefused(await runInProcess(['import', '--db', db, '--tenant', 'acme', '--replace', file]), path);
      assertRefused(await runInProcess(['import', '--db', db, '--tenant', 'acme', '-'], edit(EXAMPLE_BYTES)), path);
    }
    assert.equal((await compdata(['export', '--db', db, '--tenant', 'acme'])).stdout, before);
  });

  test('a missing file or tenant is one line and exit 1, a missing database exit 2', { skip: onlyOn('sqlite') }, async (t) => {
    const directory = temporaryDirectory(t);
    const db = join(directory, 'x.db');
    const missingFile = await runInProcess(['import', '--db', db, '--tenant', 'acme', join(directory, 'nope.json')]);
    assert.equal(missingFile.code, 1);
    assert.match(missingFile.stderr, /^error: cannot read .*nope\.json: no such file\n$/);
    const aDirectory = await runInProcess(['import', '--db', db, '--tenant', 'acme', directory]);
    assert.equal(aDirectory.code, 1);
    assert.equal(aDirectory.stderr, `error: cannot read ${directory}: not a file\n`);
    const missingDb = await runInProcess(['export', '--db', db, '--tenant', 'acme']);
    assert.equal(missingDb.code, 2);
    assert.match(missingDb.stderr, /^error: no database at [^\n]+; create one with 'compdata seed' or 'compdata import'\n$/);
    await compdata(['import', '--db', db, '--tenant', 'acme', EXAMPLE_PATH]);
    const missingTenant = await runInProcess(['export', '--db', db, '--tenant', 'globex', join(directory, 'out.json')]);
    assert.equal(missingTenant.code, 1);
    assert.match(missingTenant.stderr, /^error: no tenant "globex" in [^\n]+\n$/);
    assert.deepEqual(readdirSync(directory).filter((name) => name.startsWith('out.json')), [], 'the export refused left no file');
  });
});
