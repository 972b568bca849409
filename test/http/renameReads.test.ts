import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReportingUser } from '../../src/domain/reportingJson.js';
import { structureId } from '../../src/domain/v2Json.js';
import type { Exchange } from '../support/harness.js';
import { shared } from '../support/harness.js';
import { USERS, usersServer } from '../support/usersServer.js';

/**
 * A rename of a user who owns records (docs/rules.md#users, "Records follow their user"), read
 * back through every kind of page: each must be the page of before with the user's object (v1)
 * and reference (v2) replaced, byte for byte, as a rewrite of every record's text gives it (a
 * rename by the API, a new e-mail address by a load); the
 * renamed user's records, and only those, come back once in a sync and take a later v2 time of
 * last change, and every ETag changes. The fixture: USERS users, 48 records of user `u{i % 12}`.
 */
const served = shared(usersServer);
const STATEMENTS = `/v2/reporting/${structureId({ kind: 'statements' })}/statements`;
type Row = Record<string, unknown> & { id?: string; user?: { id: string }; 'standard.id'?: string; 'standard.user'?: { id: string } };

/** The records of a page, and its JSON text as sent: the serialisation of the parsed records, found in the answer. */
function dataOf(page: Exchange): { rows: Row[]; text: string } {
  assert.equal(page.status, 200, page.text);
  const rows = page.body.data as Row[];
  const text = JSON.stringify(rows);
  assert.ok(page.text.includes(`"data":${text}`), 'the records are sent as their parsed form serialises');
  return { rows, text };
}

test('a rename changes the user inside every kind of page and nothing else; a sync sends its records once; ETags change', async () => {
  const { put, get, server } = await served();
  const renamed = 'u2';
  const paths = [
    '/v1/reporting?limit=2000',
    '/v1/reporting?limit=7&offset=5',
    '/v1/reporting?user=user2@acme.example&limit=2000',
    '/v1/reporting?plan=AE%202026&limit=2000',
    '/v1/reporting?date_from=2026-01-01&date_to=2026-06-30&limit=2000',
    `${STATEMENTS}?limit=2000`,
    `${STATEMENTS}?limit=5&start_id=acme-r14`,
  ];
  const before = await Promise.all(paths.map(async (path) => get(path)));
  const synced = await get('/v1/reporting?changed_since=0&limit=2000');
  const v1All = dataOf(before[0]!);
  const oldUser = v1All.rows.find((row) => row.user!.id === renamed)!.user! as ReportingUser;
  const oldUserText = JSON.stringify(oldUser);
  const newUser = { ...oldUser, email: 'Renamed2@acme.example', name: 'Renamed "Two" ✓', country: 'FR' };
  const newUserText = JSON.stringify(newUser);
  const reference = (user: { id: string; email: string }) => JSON.stringify({ id: user.id, email: user.email });

  // A rename by the API, then a new e-mail address by a load (the API finds users by e-mail).
  const renaming = await put([{ email: oldUser.email, name: newUser.name, country: 'DE' }]);
  assert.equal(renaming.status, 200, renaming.text);
  await server.store.loadTenant('acme', {}, (writer) => writer.upsertUsers([{ ...newUser }]));

  const after = await Promise.all(paths.map(async (path, i) => get(i === 2 ? path.replace('user2@', 'Renamed2@') : path)));
  for (const [i, path] of paths.entries()) {
    const old = dataOf(before[i]!);
    const now = dataOf(after[i]!);
    assert.ok(old.rows.length > 0, `${path}: some records`);
    if (path.startsWith('/v1/')) {
      const mentions = old.rows.filter((row) => row.user!.id === renamed).length;
      assert.equal(old.text.split(`"user":${oldUserText}`).length - 1, mentions, `${path}: the user object once in each of its records`);
      assert.equal(now.text, old.text.replaceAll(`"user":${oldUserText}`, `"user":${newUserText}`), path);
      assert.ok(path.includes('user=') ? mentions === old.rows.length : mentions < old.rows.length, `${path}: the renamed user's records${path.includes('user=') ? ' only' : ' and others'}`);
      continue;
    }
    // v2: the reference replaced, and the renamed user's records changed later than before.
    const want = old.rows.map((row, k) => {
      if (row['standard.user']!.id !== renamed) return row;
      const time = now.rows[k]!['standard.last_modified_at'] as string;
      assert.ok(time > (row['standard.last_modified_at'] as string), `${path}: ${row['standard.id']} changed later`);
      return { ...row, 'standard.user': JSON.parse(reference(newUser)) as unknown, 'standard.last_modified_at': time };
    });
    assert.equal(now.text, JSON.stringify(want), path);
    assert.ok(now.text.includes(`"standard.user":${reference(newUser)}`) || !old.text.includes(`"standard.user":${reference(oldUser)}`), path);
  }

  // The records of the renamed user, each once, as the full page shows them; nothing else.
  const sync = await get(`/v1/reporting?changed_since=${synced.body.sync_token}&limit=2000`);
  const changed = dataOf(sync);
  const wantIds = Array.from({ length: 48 }, (_, i) => i).filter((i) => i % USERS === 2).map((i) => `acme-r${i}`);
  assert.deepEqual(changed.rows.map((row) => row.id).sort(), wantIds.sort());
  const full = new Map(dataOf(after[0]!).rows.map((row) => [row.id, JSON.stringify(row)]));
  for (const row of changed.rows) assert.equal(JSON.stringify(row), full.get(row.id), `${row.id} as the page shows it`);
  const lastSeen = dataOf(before[5]!).rows.reduce((latest, row) => ((row['standard.last_modified_at'] as string) > latest ? (row['standard.last_modified_at'] as string) : latest), '');
  const v2Changed = dataOf(await get(`${STATEMENTS}?limit=2000&last_modified_after=${encodeURIComponent(lastSeen)}`));
  assert.deepEqual(v2Changed.rows.map((row) => row['standard.id']).sort(), wantIds.sort(), 'v2: the renamed user\'s records changed after everything before');

  for (const [i, path] of paths.entries()) {
    const etag = before[i]!.headers.get('etag');
    assert.ok(etag, `${path}: an ETag`);
    const again = await get(i === 2 ? path.replace('user2@', 'Renamed2@') : path, { 'If-None-Match': etag });
    assert.equal(again.status, 200, `${path}: the ETag of before is not the page's any more`);
  }
  const settled = await get(`/v1/reporting?changed_since=${sync.body.sync_token}&limit=2000`);
  assert.equal(settled.body.count, 0, 'a sync from after the rename has nothing new');
});
