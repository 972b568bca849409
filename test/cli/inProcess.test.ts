import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EXAMPLE_BYTES } from '../support/datasets.js';
import { fixtureFile } from '../support/fixture.js';
import { runCli, runInProcess, temporaryDirectory } from './cliProcess.js';

/**
 * The CLI's command lines run in the test's process (`runInProcess`, which most CLI tests use for
 * what a command does) give what the `compdata` binary gives, byte for byte: the exit code,
 * stdout and stderr of help, version, usage errors, refusals and work done; and they leave
 * nothing of theirs in the process (its exit code, its signal and exit handlers, its
 * environment, its working directory, handles left open).
 */
async function commandLines(directory: string): Promise<[string, { args: string[]; input?: Buffer }][]> {
  const database = join(directory, 'fixture.db');
  await fixtureFile(database, { tenant: 'acme', records: 30 });
  const imported = join(directory, 'imported.db');
  const missing = join(directory, 'missing.db');
  return [
    ['--version', { args: ['--version'] }],
    ['the help', { args: ['--help'] }],
    ['a command\'s help', { args: ['keys', 'create', '--help'] }],
    ['the help command', { args: ['help'] }],
    ['the help command of a command', { args: ['help', 'import'] }],
    ['no command', { args: [] }],
    ['an unknown command', { args: ['sede'] }],
    ['an unknown option with a suggestion', { args: ['seed', '--db', database, '--tenant', 't', '--recrods', '5'] }],
    ['a bad value of serve', { args: ['serve', '--db', database, '--workers', '1.5'] }],
    ['a missing database', { args: ['keys', 'list', '--db', missing] }],
    ['an unknown tenant', { args: ['export', '--db', database, '--tenant', 'globex'] }],
    ['a check that passes', { args: ['check', '--db', database] }],
    ['a list of keys', { args: ['keys', 'list', '--db', database, '--json'] }],
    ['an export to stdout', { args: ['export', '--db', database, '--tenant', 'acme'] }],
    ['a statement that does not exist', { args: ['statements', 'validate', '--db', database, '--tenant', 'acme', '--statement', 'nobody@acme.example:2026-03'] }],
    ['an import from stdin, refused', { args: ['import', '--db', imported, '--tenant', 'acme', '-'], input: EXAMPLE_BYTES.subarray(0, 200) }],
  ];
}

/** What of the process a command could change and leave changed. */
function processState() {
  const listeners = ['SIGINT', 'SIGTERM', 'exit', 'beforeExit', 'uncaughtException', 'unhandledRejection'] as const;
  return {
    exitCode: process.exitCode,
    listeners: listeners.map((event) => `${event} ${process.listenerCount(event)}`),
    env: JSON.stringify(process.env),
    cwd: process.cwd(),
    // An Immediate runs at the loop's next turn: one pending here (a stream's close, the runner's
    // own) is no resource a command could leave behind.
    resources: process.getActiveResourcesInfo().filter((kind) => kind !== 'Timeout' && kind !== 'TTYWrap' && kind !== 'Immediate').sort(),
  };
}

describe('compdata run in the process of its caller', () => {
  test('gives the exit code, stdout and stderr of the binary, byte for byte', async (t) => {
    const lines = await commandLines(temporaryDirectory(t));
    // The binary's runs side by side (each a process of its own); the in-process runs one at a time after.
    const spawned = await Promise.all(lines.map(([, { args, input }]) => runCli(args, input)));
    for (const [at, [name, { args, input }]] of lines.entries()) {
      assert.deepEqual(await runInProcess(args, input), spawned[at], name);
    }
    assert.deepEqual(new Set(spawned.map((result) => result.code)), new Set([0, 1, 2]), 'every exit code is among the cases');
  });

  test('leaves nothing of its own in the process', async (t) => {
    const lines = await commandLines(temporaryDirectory(t));
    const before = processState();
    for (const [name, { args, input }] of lines) {
      await runInProcess(args, input);
      assert.deepEqual(processState(), before, name);
    }
  });

  test('the help command is exit 0 whatever exit code the process holds', async () => {
    const held = process.exitCode;
    process.exitCode = 1;
    let help;
    try {
      help = await runInProcess(['help']);
    } finally {
      process.exitCode = held;
    }
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: compdata /);
  });
});
