import { PassThrough } from 'node:stream';
import type { AdminStore } from '../store/store.js';
import type { LoadOptions } from '../store/vocabulary/adminShapes.js';
import { exportDataset } from './datasetExport.js';
import { loadDataset, type ImportResult } from './datasetImport.js';

/** Why a copy's export stopped: its load ended first (it failed). */
class CopyStopped extends Error {}

/**
 * Copies the data of the tenant `template` (not its keys) into the new tenant `target`: the
 * template's dataset, exported from one snapshot, streamed into the load of `target` (the path of
 * `compdata import`) in one transaction, without a file in between. `target` must have no data
 * (`TenantNotEmpty`); on any failure nothing of it is left. `undefined` when no tenant is named
 * `template`. `tap` sees every byte of the dataset as it passes (a sandbox keeps them, gzipped).
 * What the administration API's sandboxes use; the CLI can call it as well.
 */
export async function copyTenant(
  store: Pick<AdminStore, 'readTenant' | 'loadTenant'>,
  template: string,
  target: string,
  options: Omit<LoadOptions, 'replace' | 'mustBeEmpty'> & { tap?: (chunk: Buffer) => void } = {},
): Promise<ImportResult | undefined> {
  const { tap, ...loadOptions } = options;
  return store.readTenant(template, (reads) =>
    store.loadTenant(target, { ...loadOptions, mustBeEmpty: true }, async (writer) => {
      const pipe = new PassThrough();
      // Its errors reach the export (waiting to write) and the load (reading) by their own listeners.
      pipe.on('error', () => {});
      // The export waits for the load to drain the pipe; a load that fails stops it.
      const exporting = exportDataset(reads, pipe).then(
        () => void pipe.end(),
        (error: unknown) => void pipe.destroy(error instanceof Error ? error : new Error(String(error))),
      );
      try {
        return await loadDataset(writer, tap ? tapped(pipe, tap) : pipe);
      } finally {
        if (!pipe.writableEnded) pipe.destroy(new CopyStopped('the copy stopped'));
        await exporting;
      }
    }),
  );
}

async function* tapped(source: AsyncIterable<Buffer>, tap: (chunk: Buffer) => void): AsyncIterable<Buffer> {
  for await (const chunk of source) {
    tap(chunk);
    yield chunk;
  }
}
