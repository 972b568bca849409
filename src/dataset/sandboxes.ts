import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { AdminStore } from '../store/store.js';
import type { SandboxMaking, StoredRecipe } from '../store/vocabulary/adminShapes.js';
import { loadDataset } from './datasetImport.js';
import { generateSeed, type SeedOptions } from './generateSeed.js';
import { seedTenant, writeDataset } from './seedTenant.js';

/** How a sandbox was made: generated from seed parameters, or copied from a template. */
type Recipe = { seed: SeedOptions } | { template: string };

/** A reset that cannot be done: a copy made before created states were kept in the database, too large to keep. */
export class ResetUnavailable extends Error {}

/** A sandbox generated as `compdata seed` generates a tenant, its recipe (and `making`'s key and time to live) kept with it (one transaction). */
export async function seedSandbox(store: Pick<AdminStore, 'loadTenant'>, name: string, seed: SeedOptions, making?: SandboxMaking): Promise<void> {
  const recipe: Recipe = { seed };
  await seedTenant(store, name, generateSeed(seed), undefined, {
    recipe: async () => ({ recipe: JSON.stringify(recipe), dataset: null }),
    ...(making && { sandbox: making }),
  });
}

/**
 * A sandbox copied from `template` by the engine (`AdminStore.copyTenant`), its created state kept
 * in the database for its reset (and `making`'s key and time to live), in one transaction. False
 * when no tenant is named `template`.
 */
export async function copySandbox(store: Pick<AdminStore, 'copyTenant'>, template: string, name: string, making?: SandboxMaking): Promise<boolean> {
  const recipe: Recipe = { template };
  return store.copyTenant(template, name, { recipe: JSON.stringify(recipe), ...(making && { sandbox: making }) });
}

/**
 * Puts the sandbox `name` back as it was created, in one transaction (see `AdminStore.resetTenant`):
 * a copy from its created state kept in the database; a generated one generated again from its
 * seed parameters (the generator gives the same data for them); a copy made before created
 * states were kept there, loaded from the gzipped dataset kept with it. Throws
 * {@link ResetUnavailable}, nothing changed, for such a copy whose dataset was too large to keep.
 */
export async function resetSandbox(store: Pick<AdminStore, 'resetTenant'>, name: string): Promise<'reset' | 'unknown' | 'noRecipe'> {
  return store.resetTenant(name, async ({ recipe, dataset }: StoredRecipe, writer) => {
    const made = JSON.parse(recipe) as Recipe;
    if ('seed' in made) return writeDataset(writer, generateSeed(made.seed));
    if (dataset === null) throw new ResetUnavailable(`the sandbox ${name} was copied from ${made.template}, too large for its created state to be kept`);
    await loadDataset(writer, Readable.from([dataset]).pipe(createGunzip()));
  });
}
