import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openStore } from '../../src/store/openStore.js';

/**
 * A SQLite file brought up to this build's schema once per process, then copied: a copy costs a
 * quarter of the CPU of migrating a new file (as node-postgres and PostgREST load one fixture
 * database per run; on PostgreSQL, testDatabases.ts copies a migrated template database). The
 * template is closed cleanly (its WAL checkpointed into it and removed) before it is copied,
 * and removed when the process ends.
 */
let template: Promise<string> | undefined;

async function migratedTemplate(): Promise<string> {
  const directory = mkdtempSync(join(tmpdir(), 'compdata-template-'));
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  const path = join(directory, 'template.db');
  await (await openStore(path, { role: 'command' })).close();
  if (existsSync(`${path}-wal`)) throw new Error(`the SQLite template ${path} kept a WAL after its close: a copy of the file alone would lack it`);
  return path;
}

/**
 * Writes a migrated, empty SQLite database at `location` when it names a SQLite file that is not
 * there yet, in a directory that is; a PostgreSQL URL, a `sqlite:` location or a file that
 * exists is left to the store to open as it is.
 */
export async function copyMigratedSqlite(location: string): Promise<void> {
  if (/^(postgres(ql)?|sqlite):/.test(location) || existsSync(location) || !existsSync(dirname(location))) return;
  copyFileSync(await (template ??= migratedTemplate()), location);
}
