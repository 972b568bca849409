import { Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import type { AdminStore } from '../store/store.js';
import type { SandboxMaking, StoredRecipe } from '../store/vocabulary/adminShapes.js';
import { copyTenant } from './copyTenant.js';
import { loadDataset } from './datasetImport.js';
import { generateSeed, type SeedOptions } from './generateSeed.js';
import { seedTenant, writeDataset } from './seedTenant.js';

/**
 * The most of a copy's created state kept for its reset (gzipped dataset bytes). A larger copy is
 * made all the same, but cannot be reset (docs/administration.md#reset).
 */
const KEPT_DATASET_LIMIT = 64 * 1024 * 1024;

/** How a sandbox was made: generated from seed parameters, or copied from a template. */
type Recipe = { seed: SeedOptions } | { template: string };

/** A reset that cannot be done: the copy was too large for its created state to be kept. */
export class ResetUnavailable extends Error {}

/** A sandbox generated as `compdata seed` generates a tenant, its recipe (and `making`'s key) kept with it (one transaction). */
export async function seedSandbox(store: Pick<AdminStore, 'loadTenant'>, name: string, seed: SeedOptions, making?: SandboxMaking): Promise<void> {
  const recipe: Recipe = { seed };
  await seedTenant(store, name, generateSeed(seed), undefined, { recipe: async () => ({ recipe: JSON.stringify(recipe), dataset: null }), ...(making && { sandbox: making }) });
}

/**
 * A sandbox copied from `template` (see copyTenant.ts); the dataset it was made with is kept,
 * gzipped, in the same transaction (up to {@link KEPT_DATASET_LIMIT}). False when no tenant is
 * named `template`. `making`: its key, as seedSandbox's.
 */
export async function copySandbox(
  store: Pick<AdminStore, 'readTenant' | 'loadTenant'>,
  template: string,
  name: string,
  making?: SandboxMaking,
  limit = KEPT_DATASET_LIMIT,
): Promise<boolean> {
  const gzip = createGzip();
  const kept: Buffer[] = [];
  let keptBytes = 0;
  gzip.on('data', (chunk: Buffer) => {
    keptBytes += chunk.length;
    if (keptBytes <= limit) kept.push(chunk);
    else kept.length = 0;
  });
  const gzipped = new Promise<void>((resolve, reject) => gzip.on('end', resolve).on('error', reject));
  const recipe: Recipe = { template };
  try {
    const copied = await copyTenant(store, template, name, {
      ...(making && { sandbox: making }),
      tap: (chunk) => void gzip.write(chunk),
      recipe: async () => {
        gzip.end();
        await gzipped;
        return { recipe: JSON.stringify(recipe), dataset: keptBytes <= limit ? Buffer.concat(kept) : null };
      },
    });
    return copied !== undefined;
  } finally {
    if (!gzip.writableEnded) gzip.destroy();
  }
}

/**
 * Puts the sandbox `name` back as it was created, in one transaction (see `AdminStore.resetTenant`):
 * generated again from its seed parameters (the generator gives the same data for them), or
 * loaded from the dataset kept when it was copied. Throws {@link ResetUnavailable}, nothing
 * changed, for a copy whose dataset was too large to keep.
 */
export async function resetSandbox(store: Pick<AdminStore, 'resetTenant'>, name: string): Promise<'reset' | 'unknown' | 'noRecipe'> {
  return store.resetTenant(name, async ({ recipe, dataset }: StoredRecipe, writer) => {
    const made = JSON.parse(recipe) as Recipe;
    if ('seed' in made) return writeDataset(writer, generateSeed(made.seed));
    if (dataset === null) throw new ResetUnavailable(`the sandbox ${name} was copied from ${made.template}, too large for its created state to be kept`);
    await loadDataset(writer, Readable.from([dataset]).pipe(createGunzip()));
  });
}
