/**
 * A claim on the lease named `name` (one kind of the servers' background work, done by one
 * server at a time): `owner` holds it until `until` when no other owner holds it at `now` (one
 * whose lease ends after `now`). Times in milliseconds since the epoch, as the caller's clock
 * says; every server of a database is taken to keep the same time, within less than a lease.
 */
export interface LeaseClaim {
  readonly name: string;
  readonly owner: string;
  readonly now: number;
  readonly until: number;
}
