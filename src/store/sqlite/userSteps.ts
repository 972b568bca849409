import type { StoredUserRow, UserSteps } from '../engine/apiWriteSteps.js';
import { changeStamps } from './changeStamps.js';
import type { Db } from './db.js';
import { userRerender } from './recordTexts.js';

/**
 * The steps of `PUT /v1/users/bulk` (../writes/userBulk.ts) on SQLite, prepared once per connection:
 * a statement per row, which in process costs its B-tree seeks and no round trip.
 */
export function userSteps(db: Db): (tenantId: number) => UserSteps {
  const byEmail = db.prepare<[number, string], StoredUserRow>('SELECT pk, json, attributes FROM users WHERE tenant_id = ? AND email = ? COLLATE NOCASE');
  const byId = db.prepare<[number, string], StoredUserRow>('SELECT pk, json, attributes FROM users WHERE tenant_id = ? AND id = ?');
  const upsert = db
    .prepare<[number, string, string, string, string], number>(
      `INSERT INTO users (tenant_id, id, email, json, attributes) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (tenant_id, id) DO UPDATE SET email = excluded.email, json = excluded.json, attributes = excluded.attributes, archived_after = NULL
       RETURNING pk`,
    )
    .pluck();
  const rerender = userRerender(db);
  const bumpDataVersion = db.prepare<[number]>('UPDATE tenants SET data_version = random() WHERE id = ?');
  const stamps = changeStamps(db);
  return (tenantId) => ({
    users(emailKeys, ids) {
      const found = new Map<number, StoredUserRow>();
      for (const key of emailKeys) for (const row of byEmail.all(tenantId, key)) found.set(row.pk, row);
      for (const id of ids) for (const row of byId.all(tenantId, id)) found.set(row.pk, row);
      return [...found.values()];
    },
    upsertUsers: (rows) => rows.map((row) => ({ id: row.id, pk: upsert.get(tenantId, row.id, row.email, row.json, row.attributes)! })),
    rerenderUsersInRecords(changes, stamp) {
      for (const change of changes) rerender({ ...change, stamp });
    },
    nextStamp: () => stamps.next(tenantId),
    dataChanged: () => void bumpDataVersion.run(tenantId),
  });
}
