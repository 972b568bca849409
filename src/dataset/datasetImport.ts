import type { AdminStore } from '../store/store.js';
import type { TenantWriter } from '../store/vocabulary/tenantWriter.js';
import type { DatasetElement } from './datasetFormat.js';
import { readDataset } from './datasetReader.js';
import { ElementWriter, type ElementCounts } from './elementWriter.js';

export interface ImportOptions {
  /** Delete the tenant's data first (its API keys stay); otherwise upsert. */
  replace?: boolean;
  /** Told after each chunk: bytes read and elements written so far. */
  onProgress?: (bytesRead: number, elements: number) => void;
}

export interface ImportResult {
  /** Elements read, by kind. */
  counts: ElementCounts;
  /** Reporting records: how many the tenant has now, how many the load added and updated. */
  reporting: { total: number; added: number; updated: number };
}

/**
 * Loads a dataset read from `input` into the tenant `tenantName` (created when missing), in one
 * transaction: on the first problem (a `DatasetError` naming its JSON path, or a read error),
 * everything is rolled back, the tenant's creation and a `replace`'s deletion included.
 */
export function importDataset(store: AdminStore, tenantName: string, input: AsyncIterable<Buffer | string>, options: ImportOptions = {}): Promise<ImportResult> {
  return store.loadTenant(tenantName, { replace: options.replace }, (writer) => loadDataset(writer, input, options.onProgress));
}

/**
 * Writes a dataset read from `input` through `writer`, inside the caller's load transaction (the
 * path of `import`, and of a sandbox copied from a template): the counts read and written.
 */
export async function loadDataset(writer: TenantWriter, input: AsyncIterable<Buffer | string>, onProgress?: ImportOptions['onProgress']): Promise<ImportResult> {
  const elements = new ElementWriter(writer);
  // The reader hands elements over as it parses a chunk; they are written (awaiting the
  // store) once the chunk is parsed, so at most one chunk's elements wait here.
  const read: DatasetElement[] = [];
  const writeRead = async () => {
    for (const element of read.splice(0)) await elements.write(element);
  };
  try {
    await readDataset(input, (element) => void read.push(element), async (bytes) => {
      await writeRead();
      onProgress?.(bytes, elementTotal(elements.counts));
    });
  } catch (error) {
    // The elements read before a problem of the text come first: one of them may break a rule.
    await writeRead();
    throw error;
  }
  await writeRead();
  await elements.finish();
  return { counts: elements.counts, reporting: writer.reportingCounts };
}

/** The elements of every kind (the `format` element is not one). */
export function elementTotal(counts: ElementCounts): number {
  return Object.values(counts).reduce((sum, count) => sum + count, 0) - counts.format;
}
