/**
 * Where an upsert by id puts each record of a positional store (reporting records of a tenant,
 * records of a data table), keeping positions dense (see the invariants in
 * store/sqlite/migrations.ts): a record whose id is stored keeps its position and is updated in
 * place; a new one goes at the end. An id given twice in one load is a duplicate: a stored
 * record updated earlier in the load is remembered in a bitmap over the positions that existed
 * at the start (one bit per record, so memory stays small whatever the load's size), and a
 * record added by the load has a position at or past that start.
 */
export type Placement = { readonly pos: number; readonly isNew: boolean } | 'duplicate';

export class RecordPlacement {
  private readonly updated: Uint8Array;
  private nextPos: number;

  /** `storedCount`: the number of records stored when the load starts (positions 0..n-1). */
  constructor(private readonly storedCount: number) {
    this.updated = new Uint8Array(Math.ceil(storedCount / 8));
    this.nextPos = storedCount;
  }

  /**
   * Whether ids need looking up: while nothing was stored at the start, every record is new and
   * a duplicate id is caught by the store's unique index instead.
   */
  get needsLookup(): boolean {
    return this.storedCount > 0;
  }

  /** The position after the last record. */
  get count(): number {
    return this.nextPos;
  }

  /** Where the record goes, given the position its id holds (`undefined`: the id is not stored). */
  place(storedPos: number | undefined): Placement {
    if (storedPos === undefined) return { pos: this.nextPos++, isNew: true };
    if (storedPos >= this.storedCount) return 'duplicate';
    const byte = storedPos >> 3;
    const bit = 1 << (storedPos & 7);
    const bits = this.updated[byte]!;
    if (bits & bit) return 'duplicate';
    this.updated[byte] = bits | bit;
    return { pos: storedPos, isNew: false };
  }
}
