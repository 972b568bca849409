import type { RecordPlacement } from '../../domain/recordPlacement.js';
import type { ReportingUser } from '../../domain/reportingJson.js';
import type { TableField } from '../../domain/tableJson.js';

/** What every engine's tenant writer keeps in memory during a load. */

/** A user of the tenant, as the records of a load refer to it. */
export interface KnownUser {
  pk: number;
  /** The user object as stored and rendered into record bodies. */
  json: string;
  user: ReportingUser;
}

/** A data table a load writes records into. */
export interface OpenTable {
  pk: number;
  fields: TableField[];
  /** Keys of the fields of type `user`: their values must be user ids of the tenant. */
  userFields: string[];
  placement: RecordPlacement;
}

/** Distinct (user, month) pairs remembered before the memory is cleared (a cache, not a rule). */
const MAX_REMEMBERED_USER_MONTHS = 1_000_000;

/**
 * The (user, month) pairs of records that a load has made sure have their `dimension_values`
 * row: each pair is written once (an insert that does nothing when the row is there), not once
 * per record.
 */
export class UserMonthsSeen {
  private readonly seen = new Set<number>();

  /** Whether the pair is new to this load (and remembers it). */
  add(userPk: number, month: number): boolean {
    const pair = userPk * 131_072 + month;
    if (this.seen.has(pair)) return false;
    if (this.seen.size >= MAX_REMEMBERED_USER_MONTHS) this.seen.clear();
    this.seen.add(pair);
    return true;
  }
}
