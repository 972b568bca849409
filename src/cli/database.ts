import { existsSync } from 'node:fs';
import { openDatabase, type Db } from '../store/db.js';
import { CommandFailure } from './errors.js';

/**
 * Runs `work` on the database at `path`, closed afterwards. With `mustExist`, a missing file is
 * an error instead of a new empty database (reading keys of a file that is not there is a typo).
 */
export function withDatabase<T>(path: string, mustExist: boolean, work: (db: Db) => T): T {
  const db = open(path, mustExist);
  try {
    return work(db);
  } finally {
    db.close();
  }
}

/** {@link withDatabase} for asynchronous work: the database is closed once `work` settles. */
export async function withDatabaseAsync<T>(path: string, mustExist: boolean, work: (db: Db) => Promise<T>): Promise<T> {
  const db = open(path, mustExist);
  try {
    return await work(db);
  } finally {
    db.close();
  }
}

function open(path: string, mustExist: boolean): Db {
  if (mustExist && !existsSync(path)) throw new CommandFailure(`no database at ${path}`);
  try {
    return openDatabase(path, { shortLived: true });
  } catch (error) {
    throw new CommandFailure(`cannot open database ${path}: ${(error as Error).message}`);
  }
}
