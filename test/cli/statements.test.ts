import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { statementId } from '../../src/domain/statements.js';
import { fixtureFile } from '../support/fixture.js';
import { withOtherStore } from '../support/harness.js';
import { databaseFor } from '../support/testDatabases.js';
import { runCli, runInProcess } from './cliProcess.js';

/**
 * The fixture's 3 users have a statement each in 4 months (user0 in 2026-01, -04, -07, -10; user1
 * from -02, user2 from -03, every third month), every one made `validated`.
 */
async function validated(t: Parameters<typeof databaseFor>[0]): Promise<string> {
  const path = await databaseFor(t);
  await fixtureFile(path, { tenant: 'acme' });
  await withOtherStore(path, (store) =>
    store.loadTenant('acme', {}, async (writer) => {
      await writer.setStatementStatuses(Array.from({ length: 12 }, (_, i) => ({ user_id: `u${i % 3}`, month: 2026 * 12 + i, status: 'validated' as const })));
      await writer.finish();
    }),
  );
  return path;
}

describe('compdata statements', { concurrency: true }, () => {
  // The first command runs as the binary; the others in this process (inProcess.test.ts shows that
  // both print the same): what they change and print is the subject, not the process.
  test('send, then paid: the lines printed; a change the lifecycle refuses exits 1 and changes nothing', async (t) => {
    const path = await validated(t);
    const base = ['--db', path, '--tenant', 'acme'];
    const sent = await runCli(['statements', 'send', ...base, '--statement', 'user0@acme.example:2026-04']);
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(
      sent.stdout,
      `${statementId('u0', 2026 * 12 + 3)} user0@acme.example 2026-04 validated -> sent_to_payroll\n1 statement(s) now sent_to_payroll; 0 webhook call(s) queued\n`,
    );
    const refused = await runInProcess(['statements', 'paid', ...base, '--statement', 'user0@acme.example:2026-04', '--statement', 'user0@acme.example:2026-07']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /nothing changed: the statement of user0@acme\.example in 2026-07 is validated: only a sent_to_payroll statement can become paid/);
    // 2026-04 was not paid by the refused command: it can be paid now, alone.
    const paid = await runInProcess(['statements', 'paid', ...base, '--user', 'USER0@acme.example']);
    assert.equal(paid.code, 0, paid.stderr);
    assert.match(paid.stdout, /2026-04 sent_to_payroll -> paid\n1 statement\(s\) now paid/);
    const byPeriod = await runInProcess(['statements', 'send', ...base, '--from', '2026-01', '--to', '2026-07']);
    // Every statement of those months but user0's of 2026-04, paid.
    assert.match(byPeriod.stdout, /^6 statement\(s\) now sent_to_payroll/m);
  });

  // The command lines refused run in this process: what is refused is the subject, not the process.
  test('the command line: exactly one selection, months as YYYY-MM (exit 2); an unknown tenant or statement exits 1', async (t) => {
    const path = await validated(t);
    const base = ['--db', path, '--tenant', 'acme'];
    const usage: [string, string[]][] = [
      ['no selection', ['statements', 'send', ...base]],
      ['two selections', ['statements', 'send', ...base, '--user', 'user0@acme.example', '--from', '2026-01', '--to', '2026-02']],
      ['a bad month', ['statements', 'send', ...base, '--statement', 'user0@acme.example:2026-13']],
      ['--from alone', ['statements', 'send', ...base, '--from', '2026-01']],
    ];
    for (const [name, argv] of usage) assert.equal((await runInProcess(argv)).code, 2, name);
    assert.equal((await runInProcess(['statements', 'send', '--db', path, '--tenant', 'nobody', '--user', 'a@b.c'])).code, 1);
    const missing = await runInProcess(['statements', 'send', ...base, '--statement', 'user0@acme.example:2026-02']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /user0@acme\.example has no statement in 2026-02; nothing changed/);
  });
});
