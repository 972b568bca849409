import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { test, type TestContext } from 'node:test';
import { startCheckpointer } from '../../../src/store/sqlite/checkpointer.js';
import { repositoryPath } from '../../../src/http/document.js';
import { withoutTsx } from '../../../src/store/threads/startThread.js';
import { tempSqliteDatabase } from '../../support/harness.js';
import { until } from '../../support/until.js';

/**
 * A thread started with `COMPDATA_THREADS_FROM_BUILD` as given does its work: the checkpointer's
 * thread copies 4 MB of WAL into the database file, then stops when asked.
 */
async function checkpointWith(t: TestContext, fromBuild: string | undefined): Promise<void> {
  const saved = process.env.COMPDATA_THREADS_FROM_BUILD;
  t.after(() => {
    if (saved === undefined) delete process.env.COMPDATA_THREADS_FROM_BUILD;
    else process.env.COMPDATA_THREADS_FROM_BUILD = saved;
  });
  if (fromBuild === undefined) delete process.env.COMPDATA_THREADS_FROM_BUILD;
  else process.env.COMPDATA_THREADS_FROM_BUILD = fromBuild;
  const { db, dbPath } = await tempSqliteDatabase(t);
  let failure: unknown;
  const checkpointer = startCheckpointer(dbPath, { onError: (error) => (failure = error), onStopped: () => (failure ??= new Error('stopped by itself')) });
  db.pragma('wal_autocheckpoint = 0');
  const before = statSync(dbPath).size;
  db.exec('CREATE TABLE scratch (blob BLOB)');
  db.exec('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 64) INSERT INTO scratch SELECT randomblob(65536) FROM n');
  await until('the pages reach the database file', () => failure !== undefined || statSync(dbPath).size >= before + 4_000_000);
  await checkpointer.stop();
  assert.equal(failure, undefined);
}

test('from the sources, a thread starts through tsx and works', async (t) => {
  await checkpointWith(t, undefined);
});

test('with COMPDATA_THREADS_FROM_BUILD=1, a thread starts from the build and works', async (t) => {
  const built = repositoryPath('dist/src/store/sqlite/checkpointThread.js');
  if (!existsSync(built)) return t.skip(`no build (${built}): make build`);
  await checkpointWith(t, '1');
});

test('a thread from the build gets the options of the process but tsx, in either spelling', () => {
  assert.deepEqual(
    withoutTsx(['--import=tsx', '--enable-source-maps', '--import', 'tsx', '--import', 'other', '--max-old-space-size=64']),
    ['--enable-source-maps', '--import', 'other', '--max-old-space-size=64'],
  );
});
