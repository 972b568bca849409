/**
 * The keys of new users, groups and attributions: numbers of the tenant's own, each new row's
 * the tenant's largest key in the table plus its place among the rows inserted (`n`, from 1).
 * Drawn by the statement that inserts the rows, from the rows' tenant alone: every writer of a
 * tenant holds the tenant's write lock (writeSteps.ts), so two statements never draw the same
 * key, and a new row's key is larger than every stored one, as a sequence's would be.
 *
 * Why not the identity columns' sequences: a sequence is the coordinator's on Citus, which then
 * gathers the rows there to draw their keys before sending them to the tenant's node; drawn
 * from the tenant's own rows, the insert goes to that node as one task. The identity defaults
 * of the first migration stay (Citus cannot drop an identity column's default from a
 * distributed table) and no statement of the engine uses them: a row inserted without a key
 * by hand would draw one that may already be taken, and be refused.
 */

/** The rows of an INSERT ... SELECT from arrays (`rows`), each beside the tenant's row of `tenant_state` (`s`): see loadSteps.ts `stampedRows`. */
export const tenantRows = (rows: string) => `tenant_state s CROSS JOIN ${rows} WHERE s.tenant_id = $1`;

/** The key of the `n`th new row of `table` for the tenant `$1` (SQL). */
export const newKey = (table: string, n: string) => `coalesce((SELECT max(k.pk) FROM ${table} k WHERE k.tenant_id = $1), 0) + ${n}`;
