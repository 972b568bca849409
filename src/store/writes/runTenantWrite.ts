import type { TenantWrite, WrittenBy, WriteOutcome } from '../vocabulary/writeShapes.js';
import type { TenantWriteSteps } from '../engine/apiWriteSteps.js';
import { bulkUpsertWith } from './attributionBulk.js';
import { keyReused, REMEMBERED_FOR_MS } from '../../domain/idempotencyKeys.js';
import { claimWith, failTableWith, finishWith, importTableWith, pushWith } from '../imports/tableImports.js';
import { archiveUsersWith } from './userArchive.js';
import { upsertUsersWith } from './userBulk.js';

/**
 * Runs `write` over the engine's steps: every rule of every write is here and below, none in an
 * engine. A write with an `Idempotency-Key` the tenant sent within a day is not run again: the
 * same request gets what the first one wrote, another request with that key a `422`. A written
 * outcome is remembered in the write's own transaction, so that it is remembered exactly when
 * it was written.
 */
export async function runTenantWrite<W extends TenantWrite>(steps: TenantWriteSteps, write: W): Promise<WriteOutcome<WrittenBy<W>>> {
  const request = write.idempotency;
  if (!request) return runOnce(steps, write);
  const remembered = steps.idempotency();
  const earlier = await remembered.recall(request.key, request.at - REMEMBERED_FOR_MS);
  if (earlier) {
    if (earlier.fingerprint !== request.fingerprint) return { broken: keyReused(request.key) };
    return { written: JSON.parse(earlier.written) as WrittenBy<W>, replayed: true };
  }
  const outcome = await runOnce(steps, write);
  if ('written' in outcome) await remembered.remember(request, JSON.stringify(outcome.written));
  return outcome;
}

function runOnce<W extends TenantWrite>(steps: TenantWriteSteps, write: W): Promise<WriteOutcome<WrittenBy<W>>> {
  switch (write.kind) {
    case 'attributions':
      return bulkUpsertWith(steps.attributions(), write.items) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'users':
      return upsertUsersWith(steps.users(), write.items) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'archive':
      return archiveUsersWith(steps.archive(), write.items) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'push':
      return pushWith(steps.imports().imports, write.items[0]!, write.staged ?? []) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'importClaim':
      return claimWith(steps.imports().imports, write.items[0]!) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'importTable':
      return importTableWith(steps.imports(), write.items[0]!) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'importFailed':
      return failTableWith(steps.imports().imports, write.items[0]!) as Promise<WriteOutcome<WrittenBy<W>>>;
    case 'importFinish':
      return finishWith(steps.imports().imports, write.items[0]!) as Promise<WriteOutcome<WrittenBy<W>>>;
  }
}
