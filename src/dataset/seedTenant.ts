import type { AdminStore } from '../store/store.js';
import type { LoadOptions } from '../store/vocabulary/adminShapes.js';
import type { TenantWriter } from '../store/vocabulary/tenantWriter.js';
import type { SeedDataset } from './generateSeed.js';

/** Progress of a seeding: elements written so far, of `total` (statements' statuses not counted). */
export interface SeedProgress {
  start(total: number): void;
  update(written: number): void;
  stop(): void;
}

/** Elements between two progress updates. */
const PROGRESS_EVERY = 5_000;

/**
 * Fills the tenant `tenant` (created when missing) with `dataset` in one transaction, through
 * the checks of `compdata import`: what `compdata seed` and the administration API's sandboxes
 * both do. A tenant that already has users or data tables is refused (`TenantNotEmpty`).
 */
export async function seedTenant(
  store: Pick<AdminStore, 'loadTenant'>,
  tenant: string,
  dataset: SeedDataset,
  progress?: SeedProgress,
  options: Pick<LoadOptions, 'recipe' | 'sandbox'> = {},
): Promise<void> {
  await store.loadTenant(tenant, { mustBeEmpty: true, ...options }, (writer) => writeDataset(writer, dataset, progress));
}

/** Writes the whole dataset through the element writer (the path of `import`); the caller holds the transaction. */
export async function writeDataset(writer: TenantWriter, dataset: SeedDataset, progress?: SeedProgress): Promise<void> {
  const [{ ElementWriter }, { seedElements }] = await Promise.all([import('./elementWriter.js'), import('./seedElements.js')]);
  const elements = new ElementWriter(writer);
  const total =
    dataset.metrics.length + dataset.dimensions.length + dataset.users.length + dataset.groupAttributions.length +
    dataset.managerAttributions.length + dataset.reportingLineCount + 1 + dataset.tableRecordCount;
  progress?.start(total);
  try {
    let written = 0;
    for (const element of seedElements(dataset)) {
      await elements.write(element);
      // Statements' statuses are not in the total: how many there are is known once the lines are.
      if (element.kind === 'statements') continue;
      written += 1;
      if (written % PROGRESS_EVERY === 0) progress?.update(written);
    }
    await elements.finish();
  } finally {
    progress?.stop();
  }
}
