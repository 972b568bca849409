import type { ChangeRow, ChangeReads } from '../engine/readSteps.js';
import { encodeSyncToken, readSyncToken, resumeBounds, type ChangePosition } from '../../domain/syncToken.js';
import { after, type Answer } from '../vocabulary/answer.js';
import type { ChangedSource, ChangePage, ChangeQuery } from '../vocabulary/readShapes.js';

type ChangeRead = Omit<ChangePage, 'version'>;
export type ChangeReadOutcome = ChangeRead | 'badToken' | 'resync' | 'ahead';

/**
 * A page of changes (`changed_since`), whatever the engine. The counter is read before the
 * records: a change committed after that read has a later stamp than the `sync_token` given
 * on a last page, so the next sync reads it; a change committed before it is in this read
 * (changes of a tenant commit in stamp order, under its write lock). At worst a record is sent
 * twice, never lost. A token of a stamp past the counter was issued by a server that has seen more
 * of the tenant's changes than this one (`ahead`: a read replica behind the primary), or by no
 * server; one from before the last replace asks for a new sync from the start (`resync`).
 */
export function readChanges(reads: ChangeReads, query: ChangeQuery, tenantId: number, scope: string): Answer<ChangeReadOutcome> {
  const reading = readSyncToken(query.since, tenantId, scope);
  if (reading.kind === 'malformed') return 'badToken';
  const { position, fromStart } = reading;
  return after(reads.state(), (state): Answer<ChangeReadOutcome> => {
    if (position.stamp > state.seq) return 'ahead';
    if (!fromStart && position.stamp < state.resyncFrom) return 'resync';
    return after(reads.rows(resumeBounds(position), query.limit + 1), (rows) => {
      const count = Math.min(rows.length, query.limit);
      const json = Buffer.from(rows.slice(0, count).map((row) => row[5]).join(','));
      if (rows.length > query.limit) return { count, json, next: encodeSyncToken(tenantId, scope, positionOf(rows[count - 1]!)) };
      const end: ChangePosition = { stamp: Math.max(state.seq, position.stamp), stream: 2, a: 0, b: 0, c: 0 };
      return { count, json, syncToken: encodeSyncToken(tenantId, scope, end) };
    });
  });
}

const positionOf = ([stamp, stream, a, b, c]: ChangeRow): ChangePosition => ({ stamp, stream, a, b, c });

/** The first `n` rows of two lists each in change order, merged in change order. */
export function mergeInChangeOrder(x: readonly ChangeRow[], y: readonly ChangeRow[], n: number): ChangeRow[] {
  const merged: ChangeRow[] = [];
  let i = 0;
  let j = 0;
  while (merged.length < n && (i < x.length || j < y.length)) {
    if (j >= y.length || (i < x.length && precedes(x[i]!, y[j]!))) merged.push(x[i++]!);
    else merged.push(y[j++]!);
  }
  return merged;
}

const precedes = (x: ChangeRow, y: ChangeRow): boolean => {
  for (let k = 0; k < 5; k += 1) if (x[k] !== y[k]) return (x[k] as number) < (y[k] as number);
  return false;
};

/** The listing a token is bound to: a token of one listing is not one this server issued for another. */
export const changeScope = (source: ChangedSource): string => (source.kind === 'reporting' ? 'reporting' : `table:${source.table}`);
