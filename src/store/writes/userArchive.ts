import type { ArchiveSteps } from '../engine/apiWriteSteps.js';
import { managersStillInCharge, resolveArchives, type ArchiveItem } from '../../domain/archiveItems.js';
import type { WriteOutcome } from '../vocabulary/writeShapes.js';

/**
 * `DELETE /v1/users/archive/bulk` (docs/rules.md#archived-users) on any engine, inside the
 * engine's write transaction: the users exist and are named once, none of them manages someone
 * after its last month; then each user's last month is stored. Nothing else changes: records
 * and attributions are history, and stay. A broken rule is found before the first write.
 */
export async function archiveUsersWith(steps: ArchiveSteps, items: readonly ArchiveItem[]): Promise<WriteOutcome<number>> {
  const resolved = resolveArchives(items, await steps.users([...new Set(items.map((item) => item.user))]));
  if (!Array.isArray(resolved)) return { broken: resolved };
  const rows = resolved.map((item) => ({ userPk: item.userRow.pk, end: item.end }));
  const broken = managersStillInCharge(resolved, await steps.reportsAfter(rows));
  if (broken) return { broken };
  await steps.archive(rows);
  await steps.dataChanged();
  return { written: rows.length };
}
