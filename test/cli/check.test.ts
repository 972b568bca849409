import assert from 'node:assert/strict';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { describe, test, type TestContext } from 'node:test';
import { tempDatabase, type TempDatabase } from '../support/harness.js';
import { buildFixture } from '../support/fixture.js';
import { generateSeed } from '../../src/dataset/generateSeed.js';
import { seedTenant } from '../../src/dataset/seedTenant.js';
import { onlyOn } from '../support/testDatabases.js';
import { runCli, runInProcess } from './cliProcess.js';

/**
 * `compdata check`: a database broken on purpose, one way at a time, by SQL written straight
 * into it (as a bug or a hand edit would), is reported with the line of its kind naming the
 * example; a clean one passes. Fixture (test/support/fixture.ts): tenant `acme`, users u0..u2
 * (`user{i}@acme.example`), u0 in region EMEA 2026-03..2026-05 and APAC from 2026-09, 25
 * reporting records over 2026-01..2026-12, 7 deals.
 */
const month = (year: number, m: number) => year * 12 + m - 1;
const userPk = (db: TempDatabase, id: string) => db.sql.value('SELECT pk FROM users WHERE id = ?', id);

async function fixtureDatabase(t: TestContext): Promise<TempDatabase> {
  const db = await tempDatabase(t);
  await buildFixture(db.store, { tenant: 'acme' });
  return db;
}

/** `user` managed by `manager` in start..end, written as a bug would (no checks). */
async function insertManager(db: TempDatabase, user: string, manager: string, start: number | null, end: number | null) {
  const [userKey, managerKey] = [await userPk(db, user), await userPk(db, manager)];
  if (db.engine === 'sqlite') {
    await db.sql.rows('INSERT INTO manager_attributions (user_pk, manager_pk, start_month, end_month) VALUES (?, ?, ?, ?)', userKey, managerKey, start, end);
  } else {
    const tenantId = await db.sql.value(`SELECT id FROM tenants WHERE name = 'acme'`);
    await db.sql.rows(
      'INSERT INTO manager_attributions (tenant_id, user_pk, manager_pk, start_month, end_month) VALUES (?, ?, ?, ?, ?)',
      tenantId,
      userKey,
      managerKey,
      start,
      end,
    );
  }
}

/**
 * Runs `check` (in this process; the first test runs the `compdata` binary): its exit code, and
 * its stdout lines by kind.
 */
async function check(database: string, run = runInProcess) {
  const result = await run(['check', '--db', database]);
  const lines = new Map(result.stdout.split('\n').filter(Boolean).map((line) => [line.slice(0, line.indexOf(':')), line] as const));
  return { ...result, lines };
}

async function assertReported(database: string, expected: Record<string, RegExp>) {
  const result = await check(database);
  assert.equal(result.code, 1, result.stderr);
  assert.deepEqual([...result.lines.keys()].sort(), Object.keys(expected).sort(), result.stdout);
  for (const [kind, line] of Object.entries(expected)) assert.match(result.lines.get(kind)!, line);
  assert.match(result.stderr, /^error: .*: \d+ kind\(s\) of violation found\n$/);
}

describe('compdata check', { concurrency: true }, () => {
  test('a seeded database holds every invariant: exit 0', async (t) => {
    // Seeded as `compdata seed` seeds, in this process (that command's output is seed.test.ts's).
    const seeded = await tempDatabase(t);
    await seedTenant(seeded.store, 'acme', generateSeed({ seed: 'check', users: 60, records: 2000 }));
    const fixture = await fixtureDatabase(t);
    for (const db of [seeded.database, fixture.database]) {
      const result = await check(db, runCli);
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.equal(result.stdout, `ok: ${db} holds every invariant\n`);
    }
  });

  test('a user in two groups of one dimension in a month', async (t) => {
    const db = await fixtureDatabase(t);
    // EMEA no longer ends: it runs into APAC from 2026-09 (and the stored fields of 2026-07 no longer agree).
    await db.sql.rows('UPDATE group_attributions SET end_month = NULL WHERE start_month = ?', month(2026, 3));
    await assertReported(db.database, {
      'group-overlap': /^group-overlap: tenant "acme": user user0@acme\.example is in groups "EMEA" and "APAC" of dimension "region" in 2026-09$/,
      'dimension-fields': /^dimension-fields: tenant "acme": user user0@acme\.example in 2026-07: dimension fields stored as ,"region":\[\],"segment":\[\]}, the group attributions give ,"region":\["EMEA"\],"segment":\[\]}$/,
    });
  });

  test('a user with two managers in a month', async (t) => {
    const db = await fixtureDatabase(t);
    await insertManager(db, 'u1', 'u0', null, null);
    await insertManager(db, 'u1', 'u2', month(2026, 6), null);
    await assertReported(db.database, {
      'manager-overlap': /^manager-overlap: tenant "acme": user user1@acme\.example has managers user0@acme\.example and user2@acme\.example in 2026-06$/,
    });
  });

  test('a cycle of managers', async (t) => {
    const db = await fixtureDatabase(t);
    await insertManager(db, 'u0', 'u1', month(2026, 3), null);
    await insertManager(db, 'u1', 'u2', month(2026, 1), month(2026, 12));
    await insertManager(db, 'u2', 'u0', month(2026, 5), month(2026, 5));
    await assertReported(db.database, {
      'manager-cycle':
        /^manager-cycle: tenant "acme": managers go round in a cycle in 2026-05: (user\d@acme\.example) is managed by user\d@acme\.example is managed by user\d@acme\.example is managed by \1$/,
    });
  });

  test('an archived user that manages someone after its last month', async (t) => {
    const db = await fixtureDatabase(t);
    await insertManager(db, 'u1', 'u2', month(2026, 2), null);
    await db.sql.rows('UPDATE users SET archived_after = ? WHERE id = ?', month(2026, 6), 'u2');
    await assertReported(db.database, {
      'archived-manager': /^archived-manager: tenant "acme": user user2@acme\.example, archived after 2026-06, manages user1@acme\.example in 2026-07$/,
    });
  });

  test('stored dimension fields that the attributions do not give', async (t) => {
    const db = await fixtureDatabase(t);
    await db.sql.rows(`UPDATE dimension_values SET fragment = ? WHERE user_pk = ? AND month = ?`, ',"region":["Mars"],"segment":[]}', await userPk(db, 'u0'), month(2026, 1));
    await assertReported(db.database, {
      'dimension-fields': /^dimension-fields: tenant "acme": user user0@acme\.example in 2026-01: dimension fields stored as ,"region":\["Mars"\],"segment":\[\]}, the group attributions give ,"region":\[\],"segment":\[\]}$/,
    });
  });

  test('a reporting record whose user and month have no dimension fields stored', async (t) => {
    const db = await fixtureDatabase(t);
    await db.sql.rows('DELETE FROM dimension_values WHERE user_pk = ? AND month = ?', await userPk(db, 'u1'), month(2026, 2));
    await assertReported(db.database, {
      'dimension-fields': /^dimension-fields: tenant "acme": reporting record "acme-r1": no dimension fields stored for user user1@acme\.example in 2026-02$/,
    });
  });

  test('a user object kept for a month that is not the user\'s (PostgreSQL keeps one per user and month)', { skip: onlyOn('postgres') }, async (t) => {
    const kept = await fixtureDatabase(t);
    await kept.sql.rows(`UPDATE dimension_values SET user_json = replace(user_json, 'user1@', 'someone@') WHERE user_pk = ? AND month = ?`, await userPk(kept, 'u1'), month(2026, 2));
    await assertReported(kept.database, {
      'user-objects': /^user-objects: tenant "acme": user user1@acme\.example in 2026-02: the user object kept for its records is \{"id":"u1","email":"someone@acme\.example",.*\}, the user's is \{"id":"u1","email":"user1@acme\.example",.*\}$/,
    });
  });

  test('a record whose stored parts are not cut around its user', async (t) => {
    const cut = await fixtureDatabase(t);
    // The record still reads as JSON (statements are still checked), but is not cut where its user
    // stands: on PostgreSQL a space after `"user":`; on SQLite the place of its user object one character off.
    const broken = {
      sqlite: `UPDATE reporting_records SET user_at = user_at + 1 WHERE id = 'acme-r3'`,
      postgres: `UPDATE reporting_records SET head = head || ' ' WHERE id = 'acme-r3'`,
    };
    await cut.sql.rows(broken[cut.engine]);
    await assertReported(cut.database, {
      'user-objects': /^user-objects: tenant "acme": reporting record "acme-r3": its stored parts are not its texts cut around its user's object$/,
    });
  });

  test('positions that are not dense', async (t) => {
    const db = await fixtureDatabase(t);
    await db.sql.rows('UPDATE reporting_records SET pos = 100 WHERE pos = 24');
    // On SQLite the record's v2 text is in a row of its own, of the same key (migration 13).
    if (db.engine === 'sqlite') await db.sql.rows('UPDATE reporting_records_v2 SET pos = 100 WHERE pos = 24');
    await assertReported(db.database, {
      positions: /^positions: tenant "acme": reporting records: 25 records hold positions 0\.\.100, not 0\.\.24$/,
    });
  });

  test('a record whose v2 time is not the time of its change, and a table record without its v2 text', async (t) => {
    const db = await fixtureDatabase(t);
    // On SQLite a statement's v2 text and time are in a row of their own, of the same key (migration 13).
    const v2Row = db.engine === 'sqlite' ? 'reporting_records_v2 WHERE (tenant_id, pos) = (SELECT tenant_id, pos FROM reporting_records WHERE id = ?)' : 'reporting_records WHERE id = ?';
    const stored = await db.sql.value(`SELECT changed_at FROM ${v2Row}`, 'acme-r3');
    await db.sql.rows(`UPDATE ${v2Row.replace('WHERE', `SET changed_at = '2000-01-01T00:00:00.000Z' WHERE`)}`, 'acme-r3');
    await assertReported(db.database, {
      'v2-records': /^v2-records: tenant "acme": reporting record acme-r3: no v2 text, a v2 text whose id is not keyed standard\.id, or a time of last change that is not the time of its change stamp/,
    });
    await db.sql.rows(`UPDATE ${v2Row.replace('WHERE', 'SET changed_at = ? WHERE')}`, stored, 'acme-r3');
    await db.sql.rows(`UPDATE table_records SET body_v2 = NULL WHERE id = 'acme-d5'`);
    await assertReported(db.database, { 'v2-records': /^v2-records: tenant "acme": record acme-d5 of table deals: no v2 text/ });
  });

  test('a table record whose v2 text keys its id datatable.id, as before the upgrade that keys it standard.id', async (t) => {
    const db = await fixtureDatabase(t);
    await db.sql.rows(`UPDATE table_records SET body_v2 = '{"datatable.id":' || substr(body_v2, 16) WHERE id = 'acme-d4'`);
    await assertReported(db.database, { 'v2-records': /^v2-records: tenant "acme": record acme-d4 of table deals: no v2 text, a v2 text whose id is not keyed standard\.id/ });
  });

  test('positions of a table that are not dense', async (t) => {
    const db = await fixtureDatabase(t);
    await db.sql.rows('UPDATE table_records SET pos = pos + 10');
    await assertReported(db.database, {
      positions: /^positions: tenant "acme": records of table deals: 7 records hold positions 10\.\.16, not 0\.\.6$/,
    });
  });

  test('a row whose reference points nowhere: a record of a table that is gone', async (t) => {
    const db = await fixtureDatabase(t);
    // SQLite holds the reference by a foreign key, switched off here; PostgreSQL by its writes alone.
    await db.sql.exec(`${db.engine === 'sqlite' ? 'PRAGMA foreign_keys = OFF; ' : ''}DELETE FROM data_tables WHERE key = 'deals'`);
    await assertReported(db.database, {
      'foreign-keys': /^foreign-keys: a row of table_records refers to a missing row of data_tables$/,
    });
  });

  test('a statement whose stored total is not what its lines add up to, a statement without lines, lines without a statement', async (t) => {
    const db = await fixtureDatabase(t);
    const [u0, u1] = [await userPk(db, 'u0'), await userPk(db, 'u1')];
    // user1's statement of 2026-02 (record acme-r1 and any other of the month): its total one unit more.
    const lines = Number(await db.sql.value('SELECT count(*) FROM reporting_records WHERE user_pk = ? AND month = ?', u1, month(2026, 2)));
    await db.sql.rows('UPDATE statements SET total = total + 1000000 WHERE user_pk = ? AND month = ?', u1, month(2026, 2));
    const result = await check(db.database);
    assert.equal(result.code, 1, result.stderr);
    const line = result.lines.get('statements') ?? '';
    const found = /^statements: tenant "acme": the statement of user user1@acme\.example in 2026-02 has ([\d.]+) EUR stored, its (\d+) reporting record\(s\) add up to ([\d.]+) EUR$/.exec(line);
    assert.ok(found, result.stdout);
    assert.equal(Number(found[2]), lines);
    assert.equal(Number(found[1]) - Number(found[3]), 1);

    // A statement of user0 in a month without lines: it comes first (by e-mail address).
    const tenantId = await db.sql.value(`SELECT id FROM tenants WHERE name = 'acme'`);
    await db.sql.rows(
      `INSERT INTO statements (tenant_id, user_pk, month, status, total, currency_json, changed_at) VALUES (?, ?, ?, 'paid', 0, '"EUR"', '2026-01-01T00:00:00.000Z')`,
      tenantId,
      u0,
      month(2030, 1),
    );
    await assertReported(db.database, {
      statements: /^statements: tenant "acme": the statement of user user0@acme\.example in 2030-01 is stored without any reporting record: a statement is made of its lines$/,
    });

    // No statement of user0 at all: its first month with lines is reported.
    await db.sql.rows('DELETE FROM statements WHERE user_pk = ?', u0);
    const first = Number(await db.sql.value('SELECT min(month) FROM reporting_records WHERE user_pk = ?', u0));
    const count = Number(await db.sql.value('SELECT count(*) FROM reporting_records WHERE user_pk = ? AND month = ?', u0, first));
    const name = `${Math.floor(first / 12)}-${String((first % 12) + 1).padStart(2, '0')}`;
    await assertReported(db.database, {
      statements: new RegExp(`^statements: tenant "acme": the statement of user user0@acme\\.example in ${name} is not stored, though the user has ${count} reporting record\\(s\\) in that month$`),
    });
  });

  test("a damaged index: SQLite's integrity check", { skip: onlyOn('sqlite') }, async (t) => {
    const db = await fixtureDatabase(t);
    await db.sql.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const root = Number(await db.sql.value(`SELECT rootpage FROM sqlite_schema WHERE name = 'users_by_email'`));
    const pageSize = Number(await db.sql.value('PRAGMA page_size'));
    // One e-mail in the index's only page changed by its last letter: the index no longer matches its table.
    const page = Buffer.alloc(pageSize);
    const file = openSync(db.database, 'r+');
    try {
      readSync(file, page, 0, pageSize, (root - 1) * pageSize);
      const at = page.indexOf('user1@acme.example');
      assert.ok(at > 0, 'the e-mail is in the index page');
      page[at + 'user1@acme.exampl'.length] = 'a'.charCodeAt(0);
      writeSync(file, page, 0, pageSize, (root - 1) * pageSize);
    } finally {
      closeSync(file);
    }
    await assertReported(db.database, { integrity: /^integrity: SQLite's integrity check: .*users_by_email/ });
  });
});
