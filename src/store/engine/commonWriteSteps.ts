import type { Answer } from '../vocabulary/answer.js';
import type { SlotRow, SlotWrites } from '../../domain/bulkPlan.js';
import type { Period } from '../../domain/periods.js';
/** A stored attribution's columns besides its period: user, dimension, group; or user, manager. */
export type Columns = readonly number[];

/**
 * The attribution steps both the bulk upsert and a load take, for one tenant inside one write
 * transaction. `G` and `M` are how the engine finds a stored group or manager attribution again
 * (its key).
 */
export interface AttributionSteps<G, M = G> {
  /** The stored e-mail of each user. */
  emails(userPks: readonly number[]): Answer<ReadonlyMap<number, string>>;
  /** The key of each group (dimension, name), in order; created when not known yet. */
  groupPks(wanted: readonly (readonly [number, string])[]): Answer<readonly number[]>;
  /** The stored group attributions sharing a month with each (user, dimension, period), each once. */
  storedGroups(wanted: readonly { userPk: number; dimensionPk: number; period: Period }[]): Answer<readonly SlotRow<Columns, G>[]>;
  /** The stored manager attributions sharing a month with each (user, period), each once. */
  storedManagers(wanted: readonly { userPk: number; period: Period }[]): Answer<readonly SlotRow<Columns, M>[]>;
  /** Carries out the writes on the group attributions (payload: user, dimension, group). */
  writeGroups(writes: SlotWrites<Columns, G>): Answer<void>;
  /** Carries out the writes on the manager attributions (payload: user, manager). */
  writeManagers(writes: SlotWrites<Columns, M>): Answer<void>;
  /** The tenant's dimension keys, in the order of the record fields. */
  dimensionKeys(): Answer<readonly string[]>;
}

/** A user whose object changed: the texts to replace in the bodies of their records. */
export interface UserRerender {
  userPk: number;
  before: string;
  after: string;
  beforeV2: string;
  afterV2: string;
}
