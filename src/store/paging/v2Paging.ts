import type { V2Query, V2Page } from '../vocabulary/readShapes.js';
import type { V2Reads } from '../engine/readSteps.js';
import { after, type Answer } from '../vocabulary/answer.js';

export type V2PageRead = Omit<V2Page, 'version'> | 'badStartId';

/** Bounds every stored time (`YYYY-...Z`) is between: no filter on that side. */
const BEFORE_EVERY_TIME = '';
const AFTER_EVERY_TIME = '~';

/**
 * A v2 page (docs/rules.md#v2-reads), whatever the engine: the records after `startId` in v1's
 * order, each page a seek to a position, so that a deep page costs what the first does. A
 * record deleted since its id was handed out is gone on from where it stood; an id that never
 * named a record of the structure is refused. The filters compare stored times, which are
 * exact to the millisecond and written as the filters' times are (domain/v2Json.ts).
 */
export function readV2Page(reads: V2Reads, query: V2Query): Answer<V2PageRead> {
  const start = query.startId === undefined ? -1 : reads.positionOf(query.startId);
  return after(start, (position) => {
    if (position === undefined) return 'badStartId' as const;
    const from = position + 1;
    if (query.modifiedAfter === undefined && query.modifiedBefore === undefined) {
      return after(reads.joined(from, query.limit), ({ count, json, more }) => {
        if (!more) return { count, json };
        return after(reads.idAt(from + count - 1), (id) => ({ count, json, nextStartId: id }));
      });
    }
    const bounds = [query.modifiedAfter ?? BEFORE_EVERY_TIME, query.modifiedBefore ?? AFTER_EVERY_TIME] as const;
    return after(reads.changedBetween(from, ...bounds, query.limit + 1), (rows) => {
      const count = Math.min(rows.length, query.limit);
      const json = Buffer.from(rows.slice(0, count).map(([row]) => row).join(','));
      return { count, json, nextStartId: rows.length > query.limit ? rows[count - 1]![1] : undefined };
    });
  });
}
