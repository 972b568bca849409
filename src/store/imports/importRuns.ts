import type { ServerStore } from '../store.js';
import type { StoreContext } from '../storeContext.js';
import { StoreFull, StoreUnavailable } from '../vocabulary/storeErrors.js';
import type { ImportTask } from '../vocabulary/writeShapes.js';
import { errorOfFailedTable } from './tableImports.js';

type ImportRuns = Pick<ServerStore, 'pendingImports' | 'runImport'>;

/**
 * The store's side of the imports run in the background (importRunner.ts): the unfinished ones,
 * and one import run as a claim, a transaction per table and a finish (docs/rules.md#table-imports).
 */
export function importRuns({ engine, log, inTurn }: StoreContext): ImportRuns {
  return {
    pendingImports: () => inTurn(() => engine.reads.pendingImports()),
    async runImport({ tenantId, importPk }, owner, replaces) {
      const task = (): ImportTask => ({ importPk, owner, at: Date.now() });
      const claim = await engine.write(tenantId, { kind: 'importClaim', items: [{ ...task(), replaces }] });
      if (!('written' in claim) || typeof claim.written === 'string') return;
      for (const table of claim.written.tables) {
        let done;
        try {
          done = await engine.write(tenantId, { kind: 'importTable', items: [{ ...task(), table }] });
        } catch (thrown) {
          const error = engine.storeError(thrown);
          if (error instanceof StoreUnavailable) throw error;
          if (!(error instanceof StoreFull)) log.error({ err: thrown, tenantId, importPk, table }, 'a table of an import failed');
          const failure = errorOfFailedTable(error, (e) => e instanceof StoreFull);
          done = await engine.write(tenantId, { kind: 'importFailed', items: [{ ...task(), table, error: failure }] });
        }
        if ('written' in done && done.written === 'notMine') return;
      }
      await engine.write(tenantId, { kind: 'importFinish', items: [task()] });
    },
  };
}
