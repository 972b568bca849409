import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderUser, type ReportingUser } from '../../src/domain/reportingJson.js';
import { renderUserReference, structureId } from '../../src/domain/v2Json.js';
import { exportOf } from '../support/datasets.js';
import { buildFixture, fixtureUser, type Fixture } from '../support/fixture.js';
import { startTestServer } from '../support/harness.js';
import { walk } from '../support/syncWalk.js';
import { TEST_ENGINE } from '../support/testDatabases.js';

/**
 * Records follow their user (docs/rules.md#users), whatever the engine keeps in each record:
 * after a users bulk that renames two users who own records (one also changes the case of its
 * e-mail), every read answers the bytes it answered before with each of those users' objects
 * replaced by the new one, the expected texts made here from the texts read before and the
 * users' objects rendered by the test. A sync sends every record of those users once and no
 * other, the copy it updates equals a full read, and ETags change. The fixture has 12 users
 * (`u{i}`) and 48 records (user `u{i % 12}`), all of plan `AE 2026`, over 2026-01..2026-12.
 */
const USERS = 12;
const RECORDS = 48;
const STATEMENTS = `/v2/reporting/${structureId({ kind: 'statements' })}/statements`;
const LAST_MODIFIED = /,"standard\.last_modified_at":"[^"]*"/g;

/** The reads compared: v1 pages (whole, by offset, filtered), v2 pages, and an export. */
const PATHS = [
  '/v1/reporting?limit=2000',
  '/v1/reporting?limit=100',
  '/v1/reporting?limit=7&offset=14',
  '/v1/reporting?user=USER5@acme.example&limit=2000',
  '/v1/reporting?plan=AE%202026&limit=9',
  '/v1/reporting?date_from=2026-03-10&date_to=2026-06-20&limit=2000',
  `${STATEMENTS}?limit=2000`,
  `${STATEMENTS}?start_id=acme-r3&limit=5`,
];

test('users renamed in a bulk: every page, filtered page, v2 page and export reads as if each record held the new user object; a sync sends each of their records once; ETags change', async (t) => {
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', users: USERS, records: RECORDS });
  });
  const get = (path: string, headers?: Record<string, string>) => server.call('GET', path, { key: fixture.key, headers });
  const readAll = async () => {
    const texts = new Map<string, string>();
    for (const path of PATHS) {
      const response = await get(path);
      assert.equal(response.status, 200, `${path}: ${response.text}`);
      texts.set(path, response.text);
    }
    texts.set('export', (await exportOf(server.store, 'acme'))!);
    return texts;
  };
  const before = await readAll();
  const etags = await Promise.all(PATHS.map(async (path) => (await get(path)).headers.get('etag')!));
  const synced = await walk(server, fixture.key, '/v1/reporting?changed_since=0&limit=2000');
  const stamps = TEST_ENGINE === 'postgres' ? await server.sql.value('SELECT max(stamp) FROM reporting_records') : undefined;

  const renamed: [ReportingUser, ReportingUser][] = [
    [fixtureUser('acme', 2), { ...fixtureUser('acme', 2), name: 'Renamed "Two" ünï', country: 'DE' }],
    [fixtureUser('acme', 5), { ...fixtureUser('acme', 5), email: 'USER5@Acme.example', role: '' }],
  ];
  const response = await server.call('PUT', '/v1/users/bulk', {
    key: fixture.key,
    json: { data: [{ email: 'user2@acme.example', name: 'Renamed "Two" ünï', country: 'DE' }, { email: 'USER5@Acme.example', role: null }] },
  });
  assert.equal(response.status, 200, response.text);

  /**
   * A text read before, each renamed user's object (v1, and the export's users), reference (v2)
   * and e-mail where the export names a user by it (its statements) replaced by the new.
   */
  const expected = (text: string) =>
    renamed.reduce(
      (was, [old, now]) =>
        was
          .replaceAll(renderUser(old), renderUser(now))
          .replaceAll(`"user":${JSON.stringify(old.email)}`, `"user":${JSON.stringify(now.email)}`)
          .replaceAll(`"standard.user":${renderUserReference(old)}`, `"standard.user":${renderUserReference(now)}`),
      text,
    );
  const after = await readAll();
  for (const [path, text] of before) {
    const want = expected(text);
    assert.notEqual(want, text, `${path}: the read shows a renamed user`);
    if (path.startsWith(STATEMENTS)) assert.equal(after.get(path)!.replace(LAST_MODIFIED, ''), want.replace(LAST_MODIFIED, ''), path);
    else assert.equal(after.get(path), want, path);
  }

  // v2: the renamed users' records changed at the bulk, the others not.
  const ownerOf = (index: number) => `u${index % USERS}`;
  const times = (text: string) => (JSON.parse(text) as { data: Record<string, any>[] }).data.map((record) => record['standard.last_modified_at'] as string);
  const [timesBefore, timesAfter] = [times(before.get(`${STATEMENTS}?limit=2000`)!), times(after.get(`${STATEMENTS}?limit=2000`)!)];
  for (let i = 0; i < RECORDS; i += 1) {
    if (['u2', 'u5'].includes(ownerOf(i))) assert.ok(timesAfter[i]! > timesBefore[i]!, `record ${i} changed`);
    else assert.equal(timesAfter[i], timesBefore[i], `record ${i} unchanged`);
  }

  // A sync sends each record of the renamed users once, as a full read shows it, and no other.
  const changed = await walk(server, fixture.key, `/v1/reporting?changed_since=${synced.token}&limit=7`);
  const ids = changed.records.map((record) => record.id as string);
  const want = Array.from({ length: RECORDS }, (_, i) => i).filter((i) => ['u2', 'u5'].includes(ownerOf(i))).map((i) => `acme-r${i}`);
  assert.deepEqual([...ids].sort(), want.sort());
  assert.equal(new Set(ids).size, ids.length, 'each record once');
  const full = (JSON.parse(after.get('/v1/reporting?limit=2000')!) as { data: Record<string, unknown>[] }).data;
  const copy = new Map(synced.records.map((record) => [record.id, record]));
  for (const record of changed.records) copy.set(record.id, record);
  assert.equal(copy.size, full.length);
  assert.deepEqual(full.map((record) => copy.get(record.id)), full, "the client's copy is the records as they read now");
  const again = await get(`/v1/reporting?changed_since=${changed.token}`);
  assert.equal(again.body.count, 0, 'nothing more');

  for (const [i, path] of PATHS.entries()) {
    const reread = await get(path, { 'If-None-Match': etags[i]! });
    assert.equal(reread.status, 200, `${path}: a new ETag`);
    assert.notEqual(reread.headers.get('etag'), etags[i], path);
  }
  if (stamps !== undefined) {
    assert.equal(await server.sql.value('SELECT max(stamp) FROM reporting_records'), stamps, 'PostgreSQL: the rename wrote no record');
  }
});
