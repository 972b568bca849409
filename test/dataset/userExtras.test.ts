import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFixture, fixtureUser } from '../support/fixture.js';
import { tempDatabase, withOtherStore } from '../support/harness.js';
import { example, exportOf, importInto } from '../support/datasets.js';

/**
 * Users' custom attributes and archive months in datasets (docs/rules.md#users,
 * docs/rules.md#archived-users): written by the API, exported beside the user object, imported
 * back into another database the same, byte for byte; a user without them exports as before.
 */
test('custom attributes and archive months survive export and import', async (t) => {
  const source = await tempDatabase(t);
  const fixture = await buildFixture(source.store, { tenant: 'acme', users: 3, records: 6 });
  const principal = (await source.store.authenticate(fixture.key))!;
  const written = await source.store.upsertUsers(principal, [{ email: 'user1@acme.example', fields: {}, attributes: { tier: 'gold', quota: 12, ramping: true } }]);
  assert.ok('written' in written);
  const archived = await source.store.archiveUsers(principal, [{ user: 'user2@acme.example', end: 2026 * 12 + 5 }]);
  assert.ok('written' in archived);

  const exported = (await exportOf(source.store, 'acme'))!;
  const users = JSON.parse(exported).users as Record<string, unknown>[];
  assert.deepEqual(users.map(({ attributes, archived_after }) => ({ attributes, archived_after })), [
    { attributes: undefined, archived_after: undefined },
    { attributes: { quota: 12, ramping: true, tier: 'gold' }, archived_after: undefined },
    { attributes: undefined, archived_after: '2026-06' },
  ]);

  const target = await tempDatabase(t);
  await importInto(target.store, 'acme', exported);
  assert.equal(await exportOf(target.store, 'acme'), exported, 'the same file again');
  const archivedThere = await withOtherStore(target.database, async (store) => {
    const key = (await store.createKey('acme')).key;
    const late = { kind: 'group' as const, user: 'user2@acme.example', dimension: 'region', group: 'NA', start: 2026 * 12, end: null };
    return store.bulkUpsert((await store.authenticate(key))!, [late]);
  });
  assert.ok('broken' in archivedThere, 'user 2 is archived in the copy too');
});

test('an import without attributes leaves those stored; a bad attribute key is refused at its path', async (t) => {
  const db = await tempDatabase(t);
  const fixture = await buildFixture(db.store, { tenant: 'acme', users: 2, records: 2 });
  const principal = (await db.store.authenticate(fixture.key))!;
  await db.store.upsertUsers(principal, [{ email: 'user0@acme.example', fields: {}, attributes: { tier: 'silver' } }]);
  const dataset = example();
  await importInto(db.store, 'acme', { format: dataset.format, users: [{ ...fixtureUser('acme', 0), name: 'Renamed' }] });
  const again = JSON.parse((await exportOf(db.store, 'acme'))!).users as { id: string; name: string; attributes?: object }[];
  const u0 = again.find((user) => user.id === 'u0')!;
  assert.deepEqual([u0.name, u0.attributes], ['Renamed', { tier: 'silver' }]);

  const bad = { ...dataset, users: [{ ...dataset.users[0], attributes: { 'Bad-Key': 1 } }] };
  await assert.rejects(importInto(db.store, 'other', bad), /\$\.users\[0\]\.attributes/);
});

test('a user with emptied fields and a service-given id survives export and import exactly', async (t) => {
  const source = await tempDatabase(t);
  const fixture = await buildFixture(source.store, { tenant: 'acme', users: 2, records: 4 });
  const principal = (await source.store.authenticate(fixture.key))!;
  const written = await source.store.upsertUsers(principal, [
    { email: 'new@acme.example', fields: {}, attributes: {} },
    { email: 'user1@acme.example', fields: { name: null, currency: null, code: null }, attributes: {} },
  ]);
  assert.ok('written' in written);
  const newId = written.written[0]!.id as string;
  assert.match(newId, /^usr_[0-9a-f]{12}$/);

  const exported = (await exportOf(source.store, 'acme'))!;
  const users = JSON.parse(exported).users as Record<string, unknown>[];
  const empty = { name: '', role: '', currency: 'XXX', calculation_currency: 'XXX', country: '', code: '' };
  assert.deepEqual(users.find((user) => user.email === 'new@acme.example'), { id: newId, email: 'new@acme.example', ...empty });
  assert.deepEqual(users.find((user) => user.id === 'u1'), { ...fixtureUser('acme', 1), name: '', currency: 'XXX', code: '' });

  const target = await tempDatabase(t);
  await importInto(target.store, 'acme', exported);
  assert.equal(await exportOf(target.store, 'acme'), exported, 'the same file again');
});
