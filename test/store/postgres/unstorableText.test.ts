import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DatasetError } from '../../../src/domain/datasetError.js';
import { parseMonth } from '../../../src/domain/months.js';
import { example, exportOf, importInto } from '../../support/datasets.js';
import { tempDatabase } from '../../support/harness.js';

/**
 * PostgreSQL text cannot hold U+0000. Inside stored JSON it is escaped (`\u0000`) and costs
 * nothing; a name stored as text with it is refused as a broken rule of the request or load,
 * never a 500 or a driver's message.
 */
test('U+0000: escaped inside JSON, refused at its path where it would be stored as text', async (t) => {
  const { store } = await tempDatabase(t, 'postgres');
  const named = example();
  named.users[0].name = 'Ada\u0000Lovelace';
  for (const record of named.reporting) if (record.user.id === named.users[0].id) record.user.name = named.users[0].name;
  await importInto(store, 'acme', named);
  assert.match((await exportOf(store, 'acme'))!, /"name":"Ada\\u0000Lovelace"/);

  const grouped = example();
  grouped.group_attributions[1].group = 'North\u0000America';
  await assert.rejects(importInto(store, 'globex', grouped), (error: unknown) => error instanceof DatasetError && error.path === '$.group_attributions[1].group');
  const unknownUser = example();
  unknownUser.group_attributions[0].user = 'ada\u0000@example.com';
  await assert.rejects(importInto(store, 'globex', unknownUser), (error: unknown) => error instanceof DatasetError && error.path === '$.group_attributions[0].user');

  const principal = (await store.authenticate((await store.createKey('acme')).key))!;
  const item = { kind: 'group', user: 'ada.lovelace@example.com', dimension: 'region', group: 'x\u0000y', start: parseMonth('2026-01')!, end: null } as const;
  const outcome = await store.bulkUpsert(principal, [item]);
  assert.ok('broken' in outcome && outcome.broken.violations[0]!.index === 0, JSON.stringify(outcome));
  const unknown = await store.bulkUpsert(principal, [{ ...item, user: 'a\u0000@example.com', group: 'EMEA' }]);
  assert.ok('broken' in unknown && unknown.broken.violations[0]!.field === 'user', JSON.stringify(unknown));
});
