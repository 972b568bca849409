/**
 * `PUT /v1/users/groups/bulk` (docs/rules.md#bulk-attributions) as pure steps between a store's
 * set-wise reads and writes: a store looks up every e-mail and dimension of a request at once,
 * then every stored attribution the request touches at once, asks here what to check and write,
 * and writes it with a few statements. The request is planned as a whole, which is the same as
 * writing its items one after the other: items of one slot never share a month (else the
 * request is refused), so each stored row simply loses the months of every item of its slot.
 */

/** A stored user as a request names it: the store's key and the e-mail address as stored. */
export interface UserRef {
  readonly pk: number;
  readonly email: string;
  /** The last month of an archived user (docs/rules.md#archived-users); `null` or absent: active. */
  readonly archivedAfter?: number | null;
}
