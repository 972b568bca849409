import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { exportTenant } from '../../src/dataset/datasetExport.js';
import { importDataset, type ImportOptions, type ImportResult } from '../../src/dataset/datasetImport.js';
import { DatasetError } from '../../src/domain/datasetError.js';
import type { Store } from '../../src/store/store.js';

/** The example dataset of test/fixtures, as bytes and as parsed JSON (a fresh copy each call). */
export const EXAMPLE_BYTES = readFileSync(new URL('../fixtures/dataset.example.json', import.meta.url));
export const example = (): any => JSON.parse(EXAMPLE_BYTES.toString('utf8'));

async function* chunksOf(bytes: Buffer, size = 4096): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** Imports `dataset` (bytes, text, or a value written as JSON) into `tenant`. */
export function importInto(store: Store, tenant: string, dataset: Buffer | string | object, options?: ImportOptions): Promise<ImportResult> {
  const bytes = Buffer.isBuffer(dataset) ? dataset : Buffer.from(typeof dataset === 'string' ? dataset : JSON.stringify(dataset));
  return importDataset(store, tenant, chunksOf(bytes), options);
}

/** The tenant's export as text (`undefined` when there is no such tenant). */
export async function exportOf(store: Store, tenantName: string): Promise<string | undefined> {
  let text = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return (await exportTenant(store, tenantName, out)) ? text : undefined;
}

/**
 * Imports `dataset` into a tenant (`acme` unless named) that holds the example and expects it
 * refused whole: a DatasetError at `path` whose reason matches `reason`, and the tenant's export
 * unchanged.
 */
export async function assertRefusedWhole(
  store: Store,
  dataset: Buffer | string | object,
  expected: { path: string; reason: RegExp },
  options?: ImportOptions,
  tenant = 'acme',
): Promise<void> {
  await importInto(store, tenant, EXAMPLE_BYTES);
  const before = await exportOf(store, tenant);
  const error = await importInto(store, tenant, dataset, options).then(
    () => assert.fail('the import succeeded'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof DatasetError, String(error));
  assert.equal(error.path, expected.path, error.message);
  assert.match(error.reason, expected.reason);
  assert.equal(await exportOf(store, tenant), before);
}
