import { formatMonth, type MonthIndex } from './months.js';

/**
 * The read-back items (`GET /v1/users/groups`, `GET /v1/users/managers`) as JSON text, in the
 * item shape of the bulk response (docs/rules.md#bulk-attributions): months as `YYYY-MM`,
 * `null` for an open end or a manager attribution since always. Engines that do not render them
 * in SQL render them here; the SQLite engine's `json_object` writes the same bytes
 * (test/store/postgres/engineParity.test.ts).
 */
export interface StoredGroupItem {
  user: string;
  group_dimension: string;
  group: string;
  start: MonthIndex;
  end: MonthIndex | null;
}

export interface StoredManagerItem {
  user: string;
  manager: string;
  start: MonthIndex | null;
  end: MonthIndex | null;
}

const month = (index: MonthIndex | null): string | null => (index === null ? null : formatMonth(index));

export function renderGroupItem(item: StoredGroupItem): string {
  return JSON.stringify({
    user: item.user,
    group_dimension: item.group_dimension,
    group: item.group,
    start_date: month(item.start),
    end_date: month(item.end),
  });
}

export function renderManagerItem(item: StoredManagerItem): string {
  return JSON.stringify({ user: item.user, manager: item.manager, start_date: month(item.start), end_date: month(item.end) });
}
