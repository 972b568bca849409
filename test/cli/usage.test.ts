import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runCli, runInProcess, temporaryDirectory } from './cliProcess.js';

/**
 * The command lines run in this process (`runInProcess`, which inProcess.test.ts proves gives
 * the binary's exit code, stdout and stderr byte for byte), not a process each: what is tested
 * here is what the command line says, not what a process does. `serve`, which owns its process
 * once it starts, still runs as `compdata` where its database is missing.
 */

/** One line on stderr, nothing on stdout: what every refused command line looks like. */
function assertOneLineError(result: { stdout: string; stderr: string }, pattern: RegExp): void {
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^[^\n]+\n$/, `one line expected, got ${JSON.stringify(result.stderr)}`);
  assert.match(result.stderr, pattern);
}

describe('a wrong command line is one line on stderr and exit 2', { concurrency: true }, () => {
  const cases: [string, { args: string[]; error: RegExp }][] = [
    ['no command', { args: [], error: /missing command/ }],
    ['unknown command', { args: ['sede'], error: /unknown command 'sede'/ }],
    ['keys without subcommand', { args: ['keys'], error: /missing command/ }],
    ['unknown keys subcommand', { args: ['keys', 'rotate'], error: /unknown command 'rotate'/ }],
    ['unknown option', { args: ['seed', '--db', 'x.db', '--tenant', 't', '--bogus'], error: /unknown option '--bogus'/ }],
    ['misspelt option with a suggestion', { args: ['seed', '--db', 'x.db', '--tenant', 't', '--recrods', '5'], error: /--records/ }],
    ['missing --db', { args: ['seed', '--tenant', 't'], error: /--db/ }],
    ['missing --tenant', { args: ['seed', '--db', 'x.db'], error: /--tenant/ }],
    ['--db without its value', { args: ['seed', '--tenant', 't', '--db'], error: /--db/ }],
    ['empty --db', { args: ['seed', '--db', '', '--tenant', 't'], error: /--db/ }],
    ['non-integer --records', { args: ['seed', '--db', 'x.db', '--tenant', 't', '--records', '10.5'], error: /--records/ }],
    ['exponent --records', { args: ['seed', '--db', 'x.db', '--tenant', 't', '--records', '1e6'], error: /--records/ }],
    ['negative --records', { args: ['seed', '--db', 'x.db', '--tenant', 't', '--records', '-5'], error: /--records/ }],
    ['zero --users', { args: ['seed', '--db', 'x.db', '--tenant', 't', '--users', '0'], error: /--users/ }],
    ['blank tenant', { args: ['seed', '--db', 'x.db', '--tenant', ' acme'], error: /--tenant/ }],
    ['extra operand', { args: ['seed', '--db', 'x.db', '--tenant', 't', 'more'], error: /too many arguments/ }],
    ['keys create without --tenant', { args: ['keys', 'create', '--db', 'x.db'], error: /--tenant/ }],
    ['keys revoke without the key', { args: ['keys', 'revoke', '--db', 'x.db'], error: /missing required argument/ }],
    ['keys list without --db', { args: ['keys', 'list'], error: /--db/ }],
    ['backup without OUT', { args: ['backup', '--db', 'x.db'], error: /missing required argument/ }],
    ['check without --db', { args: ['check'], error: /--db/ }],
    ['serve port too large', { args: ['serve', '--db', 'x.db', '--port', '65536'], error: /--port/ }],
    ['serve port negative', { args: ['serve', '--db', 'x.db', '--port', '-1'], error: /--port/ }],
    ['serve port not a number', { args: ['serve', '--db', 'x.db', '--port', 'http'], error: /--port/ }],
    ['serve relative public URL', { args: ['serve', '--db', 'x.db', '--public-url', '/api'], error: /--public-url/ }],
    ['serve ftp public URL', { args: ['serve', '--db', 'x.db', '--public-url', 'ftp://h/'], error: /--public-url/ }],
    ['serve public URL with a query', { args: ['serve', '--db', 'x.db', '--public-url', 'https://h/?a=1'], error: /--public-url/ }],
    ['serve --cors-origin with a path', { args: ['serve', '--db', 'x.db', '--cors-origin', 'https://app.example.com/ui'], error: /--cors-origin/ }],
    ['serve --cors-origin not a URL', { args: ['serve', '--db', 'x.db', '--cors-origin', 'app.example.com'], error: /--cors-origin/ }],
    ['serve zero --max-concurrent', { args: ['serve', '--db', 'x.db', '--max-concurrent', '0'], error: /--max-concurrent/ }],
    ['import without its file', { args: ['import', '--db', 'x.db', '--tenant', 't'], error: /missing required argument 'file'/ }],
    ['import without --tenant', { args: ['import', '--db', 'x.db', 'data.json'], error: /--tenant/ }],
    ['export with two files', { args: ['export', '--db', 'x.db', '--tenant', 't', 'a.json', 'b.json'], error: /too many arguments/ }],
    ['serve bad --body-limit', { args: ['serve', '--db', 'x.db', '--body-limit', '1MB'], error: /--body-limit/ }],
  ];
  for (const [name, { args, error }] of cases) {
    test(name, async () => {
      const result = await runInProcess(args);
      assert.equal(result.code, 2, result.stderr);
      assertOneLineError(result, error);
    });
  }
});

describe('--help on every command exits 0 and prints its usage on stdout', { concurrency: true }, () => {
  const commands = [[], ['seed'], ['keys'], ['keys', 'create'], ['keys', 'revoke'], ['keys', 'list'], ['serve'], ['backup'], ['compact'], ['check']];
  for (const command of commands) {
    test(['compdata', ...command].join(' '), async () => {
      const result = await runInProcess([...command, '--help']);
      assert.equal(result.code, 0);
      assert.equal(result.stderr, '');
      assert.ok(result.stdout.startsWith(`Usage: ${['compdata', ...command].join(' ')} `), result.stdout);
    });
  }
});

test('--version prints the version of package.json and exits 0', async () => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  for (const flag of ['--version', '-V']) {
    const result = await runInProcess([flag]);
    assert.deepEqual([result.code, result.stdout, result.stderr], [0, `${version}\n`, ''], flag);
  }
});

describe('a database that cannot be opened is one line on stderr and exit 1', { concurrency: true }, () => {
  const cases: [string, { args: (missing: string) => string[]; error: RegExp }][] = [
    ['seed into a missing directory', { args: (m) => ['seed', '--db', m, '--tenant', 't'], error: /cannot open database/ }],
    ['import into a missing directory', { args: (m) => ['import', '--db', m, '--tenant', 't', '-'], error: /cannot open database/ }],
  ];
  for (const [name, { args, error }] of cases) {
    test(name, async (t) => {
      const missing = join(temporaryDirectory(t), 'no-such-directory', 'x.db');
      const result = await runInProcess(args(missing), '{"format":"compdata-dataset/1"}');
      assert.equal(result.code, 1, result.stderr);
      assertOneLineError(result, error);
    });
  }
});

describe('only seed and import create a database: the others refuse a missing one, exit 2', { concurrency: true }, () => {
  const cases: [string, (missing: string) => string[]][] = [
    ['serve', (m) => ['serve', '--db', m, '--port', '0']],
    ['serve --workers 2', (m) => ['serve', '--db', m, '--port', '0', '--workers', '2']],
    ['keys create', (m) => ['keys', 'create', '--db', m, '--tenant', 't']],
    ['keys list', (m) => ['keys', 'list', '--db', m]],
    ['keys revoke', (m) => ['keys', 'revoke', '--db', m, 'abc']],
    ['export', (m) => ['export', '--db', m, '--tenant', 't']],
    ['backup', (m) => ['backup', '--db', m, `${m}.copy`]],
    ['compact', (m) => ['compact', '--db', m]],
    ['check', (m) => ['check', '--db', m]],
  ];
  for (const [name, args] of cases) {
    test(name, async (t) => {
      const directory = temporaryDirectory(t);
      const missing = join(directory, 'typo.db');
      const result = await (args(missing)[0] === 'serve' ? runCli : runInProcess)(args(missing));
      assert.equal(result.code, 2, result.stderr);
      const named = missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      assertOneLineError(result, new RegExp(`^error: no database at ${named}; create one with 'compdata seed' or 'compdata import'\n$`));
      assert.deepEqual(readdirSync(directory), [], 'a file was created');
    });
  }
});
