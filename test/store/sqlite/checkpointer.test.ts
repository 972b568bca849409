import assert from 'node:assert/strict';
import { rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { startCheckpointer } from '../../../src/store/sqlite/checkpointer.js';
import { openDatabase, type Db } from '../../../src/store/sqlite/db.js';
import { tempDatabase, tempSqliteDatabase } from '../../support/harness.js';
import { smallDiskUnavailable } from '../../support/smallDisk.js';
import { until } from '../../support/until.js';

/** Writes `megabytes` of new pages through `db` (into the WAL). */
function write(db: Db, megabytes: number): void {
  db.exec('CREATE TABLE IF NOT EXISTS scratch (blob BLOB)');
  const insert = db.prepare('INSERT INTO scratch VALUES (randomblob(65536))');
  db.transaction(() => {
    for (let i = 0; i < megabytes * 16; i += 1) insert.run();
  })();
}


test('a writer that does not checkpoint has its WAL copied into the database file by the thread', async (t) => {
  const { db, dbPath } = await tempSqliteDatabase(t);
  const checkpointer = startCheckpointer(dbPath, { onError: (error) => assert.fail(String(error)), onStopped: () => assert.fail('stopped') });
  db.pragma('wal_autocheckpoint = 0'); // as the writer thread of a server
  const before = statSync(dbPath).size;
  write(db, 8);
  assert.ok(statSync(dbPath).size < before + 1_000_000, 'the commit itself did not checkpoint');
  await until('the pages reach the database file', () => statSync(dbPath).size >= before + 8_000_000);
  await checkpointer.stop();
  await checkpointer.stop(); // a second stop is harmless
});

test('should the thread fail, the error is reported and its stop announced', async (t) => {
  const { dbPath } = await tempSqliteDatabase(t);
  const errors: unknown[] = [];
  let stopped = false;
  const checkpointer = startCheckpointer(dbPath, { onError: (error) => errors.push(error), onStopped: () => (stopped = true) });
  rmSync(dirname(dbPath), { recursive: true }); // before the thread opens its connection
  await until('the thread reports its failure', () => errors.length > 0);
  await until('the stop is announced (the writer then checkpoints by itself)', () => stopped);
  await checkpointer.stop(); // resolves although the thread is gone
});

test('on a full disk the thread says so once and goes on trying; once space returns the WAL reaches the file', { skip: smallDiskUnavailable() }, async (t) => {
  const { database: dbPath, disk, beforeRemoval } = await tempDatabase(t, 'sqlite', { smallDiskMegabytes: 24 });
  const db = openDatabase(dbPath);
  db.pragma('wal_autocheckpoint = 0'); // as the writer thread of a server
  write(db, 4); // into the WAL, while there is room
  const before = statSync(dbPath).size;
  disk!.fill();

  const reports: boolean[] = [];
  const checkpointer = startCheckpointer(dbPath, {
    onError: (error) => assert.fail(String(error)),
    onStopped: () => assert.fail('the thread stopped'),
    onDiskFull: (full) => reports.push(full),
  });
  beforeRemoval(async () => {
    await checkpointer.stop();
    db.close();
  });
  await until('the thread tells that checkpoints fail', () => reports.length > 0);
  await sleep(1000); // four more ticks, each failing again
  assert.deepEqual(reports, [true], 'told once, not at every tick');
  assert.ok(statSync(dbPath).size < before + 1_000_000, 'the pages stayed in the WAL');

  disk!.free();
  await until('the thread tells that checkpoints succeed again', () => reports.length > 1);
  assert.deepEqual(reports, [true, false]);
  await until('the pages reach the database file', () => statSync(dbPath).size >= before + 4_000_000);
});
