import { existsSync } from 'node:fs';
import { openDatabase, type Db } from '../store/db.js';
import { CommandFailure } from './errors.js';

/**
 * Runs `work` on the database at `path`, closed afterwards. With `mustExist`, a missing file is
 * an error instead of a new empty database (reading keys of a file that is not there is a typo).
 */
export function withDatabase<T>(path: string, mustExist: boolean, work: (db: Db) => T): T {
  if (mustExist && !existsSync(path)) throw new CommandFailure(`no database at ${path}`);
  let db: Db;
  try {
    db = openDatabase(path);
  } catch (error) {
    throw new CommandFailure(`cannot open database ${path}: ${(error as Error).message}`);
  }
  try {
    return work(db);
  } finally {
    db.close();
  }
}
