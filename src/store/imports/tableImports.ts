import { LINES_PER_CHUNK, type PushItem, type Pushed, type ImportTask, type ImportClaim, type WriteOutcome } from '../vocabulary/writeShapes.js';
import type { ImportSteps, ImportRunSteps } from '../engine/apiWriteSteps.js';
import { randomBytes } from 'node:crypto';
import { importFailed, parsingError, storageError, tableNotFound, type ImportError } from '../../domain/importJson.js';
import type { TableField } from '../../domain/tableJson.js';
import { checkLines, userIdsNamed, type IgnoredField } from '../../domain/tableLines.js';
import { textCheckFor } from '../loading/loadChecks.js';
import { TenantLoader } from '../loading/tenantLoader.js';
/**
 * Records handed to the loader at a time (a statement each). The import itself runs in a
 * thread of its own on each engine (SQLite's writer thread, PostgreSQL's import thread), never
 * in the event loop's way; on PostgreSQL it gives way to the server's requests between two
 * batches (`afterBatch`).
 */
const BATCH = 250;
/**
 * How long an import started by a server that no longer says it is working on it stays its
 * own: after that, another server takes it over (a table's transaction is never run twice:
 * each one checks, under the tenant's write lock, that its table is not finished yet).
 */
export const IMPORT_LEASE_MS = 60_000;

/** A new import's id: `imp_` and 24 hex digits. */
const newImportId = () => `imp_${randomBytes(12).toString('hex')}`;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A push: joins the tenant's import that has not started (which then starts `debounce` seconds
 * from now), or makes one, and stores the lines after those already pushed into the table.
 */
export async function pushWith(steps: ImportSteps, push: PushItem, staged: readonly string[]): Promise<WriteOutcome<Pushed>> {
  if (!(await steps.table(push.table))) {
    return { broken: { detail: `No data table ${JSON.stringify(push.table)} exists: nothing was pushed.`, violations: [{ pointer: '/path/data_table_key', message: 'no such data table' }] } };
  }
  const launchAt = push.at + push.debounce * 1000;
  const joined = await steps.scheduled();
  let importPk: number;
  let id: string;
  if (joined) {
    ({ pk: importPk, id } = joined);
    await steps.setLaunchAt(importPk, launchAt);
  } else {
    id = newImportId();
    importPk = await steps.create(id, iso(push.at), launchAt);
  }
  const before = await steps.addLines(importPk, push.table, push.all, push.lines);
  for (const [index, json] of staged.entries()) await steps.stage(importPk, push.table, before + index * LINES_PER_CHUNK + 1, json);
  return { written: { import_id: id } };
}

/**
 * A server takes an import up: a scheduled one once due, a started one that is its own, or
 * whose server is gone (`task.replaces`); then its tables left.
 */
export async function claimWith(steps: ImportSteps, task: ImportTask): Promise<WriteOutcome<ImportClaim>> {
  const state = await steps.state(task.importPk);
  if (!state || state.status === 'finished') return { written: 'finished' };
  if (state.status === 'scheduled' && state.launchAt > task.at) return { written: 'notDue' };
  const gone = task.replaces !== undefined && task.replaces.owner === state.owner && task.replaces.heartbeatAt === state.heartbeatAt;
  if (state.status === 'started' && state.owner !== task.owner && !gone) return { written: 'notMine' };
  await steps.claim(task.importPk, task.owner, task.at, iso(task.at));
  return { written: { tables: (await steps.unfinished(task.importPk)).map((table) => table.key) } };
}

/**
 * One table of an import, in one transaction: its lines checked (every line that does not fit
 * is listed, and when none fits the table fails with nothing written), then, for `all`, its
 * records deleted, and the records of the lines that fit (without their properties that are not
 * fields, counted) upserted by the dataset loader with this transaction's stamp. `'notMine'`:
 * another server took the import over meanwhile.
 */
export async function importTableWith(steps: ImportRunSteps, task: ImportTask & { table: string }): Promise<WriteOutcome<'imported' | 'notMine'>> {
  const { imports, writes, tenantId } = steps;
  const mine = await ownTable(imports, task);
  if (mine !== 'mine') return { written: mine === 'done' ? 'imported' : 'notMine' };
  const all = (await imports.unfinished(task.importPk)).find((table) => table.key === task.table)!.all;
  const table = await imports.table(task.table);
  if (!table) return finished(imports, task, null, tableNotFound(task.table));
  const lines: unknown[] = [];
  for (const chunk of await imports.staged(task.importPk, task.table)) {
    for (const line of JSON.parse(chunk) as unknown[]) lines.push(line);
  }
  const fields = JSON.parse(table.fields) as TableField[];
  const loadSteps = writes.loadSteps(tenantId);
  const users = new Set((await loadSteps.usersById(userIdsNamed(fields, lines))).map((user) => user.id));
  const idProblem = steps.textHoldsNul ? () => undefined : (id: string) => (id.includes('\u0000') ? 'must not contain the character U+0000' : undefined);
  const checked = checkLines(fields, lines, { isUser: (id) => users.has(id), idProblem });
  const { records, failures, ignored } = checked;
  if (records.length === 0 && failures.length > 0) return finished(imports, task, null, parsingError(task.table, failures, 0));

  await writes.dataChanged(tenantId);
  const stamp = await writes.nextStamp(tenantId, false);
  if (all) await imports.clearTable(table.pk, task.table, stamp);
  const loader = await TenantLoader.open(loadSteps, stamp, textCheckFor(steps.textHoldsNul));
  for (let first = 0; first < records.length; first += BATCH) {
    const started = performance.now();
    await loader.upsertTableRecords(task.table, records.slice(first, first + BATCH), { path: '$.data', first });
    await steps.afterBatch?.(performance.now() - started);
  }
  await loader.finish();
  return finished(imports, task, records.length, failures.length > 0 ? parsingError(task.table, failures, records.length) : null, ignored);
}

/** A table whose transaction failed (`task.error`): its failure recorded, nothing of it written. */
export async function failTableWith(imports: ImportSteps, task: ImportTask & { table: string; error: ImportError }): Promise<WriteOutcome<'imported' | 'notMine'>> {
  const mine = await ownTable(imports, task);
  if (mine !== 'mine') return { written: mine === 'done' ? 'imported' : 'notMine' };
  return finished(imports, task, null, task.error);
}

/** The import finished once its tables are (`false` while one is left, or it is another's). */
export async function finishWith(imports: ImportSteps, task: ImportTask): Promise<WriteOutcome<boolean>> {
  const state = await imports.state(task.importPk);
  if (!state || state.owner !== task.owner || state.status !== 'started') return { written: false };
  if ((await imports.unfinished(task.importPk)).length > 0) return { written: false };
  await imports.finish(task.importPk, iso(task.at));
  return { written: true };
}

/** The error recorded for a table whose transaction threw `error`. */
export const errorOfFailedTable = (error: unknown, isFull: (error: unknown) => boolean): ImportError => (isFull(error) ? storageError() : importFailed());

async function ownTable(imports: ImportSteps, task: ImportTask & { table: string }): Promise<'mine' | 'done' | 'notMine'> {
  const state = await imports.state(task.importPk);
  if (!state || state.status !== 'started' || state.owner !== task.owner) return 'notMine';
  const left = await imports.unfinished(task.importPk);
  return left.some((table) => table.key === task.table) ? 'mine' : 'done';
}

/** The table's finished state: `records` imported (`null`: it failed), its error, the properties its lines had that are not fields. */
async function finished(
  imports: ImportSteps,
  task: ImportTask & { table: string },
  records: number | null,
  error: ImportError | null,
  ignored: readonly IgnoredField[] = [],
): Promise<WriteOutcome<'imported'>> {
  await imports.finishTable(task.importPk, task.table, records, error === null ? null : JSON.stringify(error), ignored.length === 0 ? null : JSON.stringify(ignored));
  return { written: 'imported' };
}
