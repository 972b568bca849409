import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { DatasetReads } from '../store/vocabulary/adminShapes.js';
import type { AdminStore } from '../store/store.js';
import { DATASET_FORMAT } from './datasetFormat.js';

/**
 * Writes a tenant's data as a dataset (openapi/dataset.schema.json) to `out`: every section,
 * one element per line, in the API's order. Rows come in chunks read by key and each chunk is
 * written before the next is read, waiting for `out` to drain: memory stays flat whatever the
 * size. The same data gives the same bytes. `onElements` is told how many elements went out.
 */
async function exportDataset(reads: DatasetReads, out: Writable, onElements?: (count: number) => void): Promise<void> {
  const write = async (text: string) => {
    // A reader that went away (a copy's load that failed) stops the export.
    if (out.destroyed) throw new Error('the dataset\'s reader went away');
    if (!out.write(text)) await once(out, 'drain');
  };
  /** The elements of `chunks`, one per line, each after the first preceded by a comma; true when there were none. */
  const writeElements = async (chunks: AsyncIterable<string[]>) => {
    let empty = true;
    for await (const chunk of chunks) {
      await write(`${empty ? '\n' : ',\n'}${chunk.join(',\n')}`);
      empty = false;
      onElements?.(chunk.length);
    }
    return empty;
  };
  const writeArray = async (name: string, chunks: AsyncIterable<string[]>) => {
    await write(`,\n${JSON.stringify(name)}:[`);
    await write((await writeElements(chunks)) ? ']' : '\n]');
  };
  const keys = async function* (list: string[]) {
    if (list.length > 0) yield list.map((key) => JSON.stringify({ key }));
  };

  await write(`{"format":${JSON.stringify(DATASET_FORMAT)}`);
  await writeArray('metrics', keys(await reads.metricKeys()));
  await writeArray('dimensions', keys(await reads.dimensionKeys()));
  await writeArray('users', reads.users());
  await writeArray('group_attributions', reads.groupAttributions());
  await writeArray('manager_attributions', reads.managerAttributions());
  await writeArray('reporting', reads.reporting());
  await writeArray('statements', reads.statements());
  await write(',\n"tables":[');
  const tables = await reads.tables();
  for (const [index, table] of tables.entries()) {
    const header = `{"key":${JSON.stringify(table.key)},"name":${JSON.stringify(table.name)},"fields":${JSON.stringify(table.fields)},"records":[`;
    await write(`${index === 0 ? '\n' : ',\n'}${header}`);
    await write((await writeElements(reads.tableRecords(table.key))) ? ']}' : '\n]}');
  }
  await write(tables.length === 0 ? ']}\n' : '\n]}\n');
}

/**
 * Writes the tenant's data to `out` from one snapshot of the database (see {@link exportDataset});
 * false when there is no such tenant.
 */
export async function exportTenant(store: AdminStore, tenantName: string, out: Writable, onElements?: (count: number) => void): Promise<boolean> {
  const exported = await store.readTenant(tenantName, async (reads) => {
    await exportDataset(reads, out, onElements);
    return true;
  });
  return exported === true;
}
