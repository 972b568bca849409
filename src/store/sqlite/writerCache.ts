import type { UserRef } from '../../domain/userRef.js';
import type { ManagerEdge } from '../../domain/bulkChecks.js';
import { periodsOverlap, type Period } from '../../domain/periods.js';
import type { Db } from './db.js';

/**
 * What the writer thread remembers between bulk upserts: the users it looked up by e-mail, the
 * groups by dimension and name, and the manager attributions of the users it read. A request of
 * 200 items looks up about 230 e-mail addresses and 170 groups, and walks about 365 steps up
 * the managers for its cycle check; from memory, none of it costs a statement.
 *
 * It is only ever stale when another connection wrote: another server process, or the CLI.
 * SQLite's `data_version` changes exactly then, so each write transaction first compares it
 * (inside the transaction, where it sees every commit before ours) and forgets everything when
 * it moved. The writer's own writes forget what they change: a user's manager attributions
 * once it wrote them; and a transaction that is rolled back forgets everything. It holds at
 * most {@link MAX_ENTRIES} users and as many users' manager attributions (e-mail addresses that
 * name no user count too), then starts afresh: a few megabytes at most.
 */
const MAX_ENTRIES = 100_000;

/** A stored manager attribution, as the cycle check sees it, with its primary key. */
export interface StoredManagerEdge extends ManagerEdge {
  readonly pk: number;
}

/** How the attribution steps find users, groups and managers (bulkSteps.ts): through {@link writerCache}, or {@link directLookups}. */
export type Lookups = Omit<WriterCache, 'check' | 'forget'>;

export function writerCache(db: Db) {
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  const userByEmail = db.prepare<[number, string], UserRef>(
    'SELECT pk, email, archived_after AS archivedAfter FROM users WHERE tenant_id = ? AND email = ? COLLATE NOCASE',
  );
  const managersOf = db.prepare<[number], StoredManagerEdge>(
    'SELECT pk, user_pk AS user, manager_pk AS manager, start_month AS start, end_month AS "end" FROM manager_attributions WHERE user_pk = ?',
  );
  let seenVersion: number | undefined;
  const users = new Map<string, UserRef | null>();
  const groups = new Map<string, number>();
  const managers = new Map<number, StoredManagerEdge[]>();
  const forget = () => {
    users.clear();
    groups.clear();
    managers.clear();
  };

  return {
    /** At the start of each write transaction: forgets everything when another connection wrote. */
    check(): void {
      const version = dataVersion.get()!;
      if (version !== seenVersion) forget();
      seenVersion = version;
    },
    /** After a rollback: what this transaction wrote is gone, so is what was learnt from it. */
    forget,
    /** The tenant's user with this e-mail address (compared without regard to ASCII case). */
    user(tenantId: number, email: string): UserRef | undefined {
      const key = `${tenantId}\u0000${email}`;
      let found = users.get(key);
      if (found === undefined) {
        if (users.size >= MAX_ENTRIES) users.clear();
        users.set(key, (found = userByEmail.get(tenantId, email) ?? null));
      }
      return found ?? undefined;
    },
    /** The group `name` of the dimension: `find` it (and create it when missing) unless remembered. */
    group(dimensionPk: number, name: string, find: () => number): number {
      const key = `${dimensionPk}\u0000${name}`;
      let pk = groups.get(key);
      if (pk === undefined) {
        if (groups.size >= MAX_ENTRIES) groups.clear();
        groups.set(key, (pk = find()));
      }
      return pk;
    },
    /** The manager attributions of `userPk` that share a month with `months`. */
    managersOverlapping(userPk: number, months: Period): StoredManagerEdge[] {
      let all = managers.get(userPk);
      if (!all) {
        if (managers.size >= MAX_ENTRIES) managers.clear();
        managers.set(userPk, (all = managersOf.all(userPk)));
      }
      return all.filter((edge) => periodsOverlap(edge, months));
    },
    /** The manager attributions of these users were written. */
    managersChanged(userPks: Iterable<number>): void {
      for (const userPk of userPks) managers.delete(userPk);
    },
  };
}

export type WriterCache = ReturnType<typeof writerCache>;

/** The same lookups without memory: for a load's transaction, on a connection of its own. */
export function directLookups(db: Db): Lookups {
  const userByEmail = db.prepare<[number, string], UserRef>('SELECT pk, email FROM users WHERE tenant_id = ? AND email = ? COLLATE NOCASE');
  const managersOverlapping = db.prepare<[number, number, number], StoredManagerEdge>(
    `SELECT pk, user_pk AS user, manager_pk AS manager, start_month AS start, end_month AS "end" FROM manager_attributions
     WHERE user_pk = ? AND (start_month IS NULL OR start_month <= ?) AND (end_month IS NULL OR end_month >= ?)`,
  );
  return {
    user: (tenantId, email) => userByEmail.get(tenantId, email),
    group: (_dimensionPk, _name, find) => find(),
    managersOverlapping: (userPk, months) =>
      managersOverlapping.all(userPk, months.end ?? Number.MAX_SAFE_INTEGER, months.start ?? Number.MIN_SAFE_INTEGER),
    managersChanged: () => {},
  };
}
