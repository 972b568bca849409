import { getRandomValues } from 'node:crypto';
import { run, statement, type Queryable } from './connection.js';
/**
 * The version of the tenant's data: a new random value in each transaction that writes it,
 * drawn here (Citus refuses a volatile function in an UPDATE of a distributed table).
 */
const setDataVersion = statement<[number, number]>('UPDATE tenant_state SET data_version = $2 WHERE tenant_id = $1');

/** A random integer of 0..2^53 - 1, as a data version. */
export const newDataVersion = (): number => Number(getRandomValues(new BigUint64Array(1))[0]! >> 11n);

/** Gives the tenant's data a new version (see migrations.ts). */
export const bumpDataVersion = async (db: Queryable, tenantId: number): Promise<void> => void (await run(db, setDataVersion, tenantId, newDataVersion()));
