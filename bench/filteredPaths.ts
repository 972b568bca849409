/**
 * The requests of the filtered scenarios (`reporting-user-first`, `reporting-user-deep-next`),
 * found on a running server of the read store: the user with the most records among those of
 * the first page, the first page of their records, and the last full page of a walk of them by
 * `next` (its path as the page before it gives it, cursor included).
 */
import { READ_PATH, nextPathIn } from './scenarios.js';

export interface FilteredPaths {
  /** The e-mail address of the user. */
  user: string;
  firstPath: string;
  deepNextPath: string;
  /** The position of the deep page in the walk (its `offset`). */
  deepOffset: number;
}

/** `undefined` when no user of the first page has two full pages of records (a small store): no filtered scenarios then. */
export async function filteredPaths(url: string, key: string, limit: number): Promise<FilteredPaths | undefined> {
  const get = async (path: string) => {
    const response = await fetch(`${url}${path}`, { headers: { 'X-API-Key': key } });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.text();
  };
  const firstPage = JSON.parse(await get(`${READ_PATH}?limit=${limit}`)) as { data: { user: { email: string } }[] };
  let user = '';
  let most = -1;
  for (const email of new Set(firstPage.data.map((record) => record.user.email))) {
    const { count } = JSON.parse(await get(`${READ_PATH}?user=${encodeURIComponent(email)}&limit=0`)) as { count: number };
    if (count > most) [user, most] = [email, count];
  }
  if (most < 2 * limit) return undefined;
  const firstPath = `${READ_PATH}?user=${encodeURIComponent(user)}&limit=${limit}`;
  // The path of each page as the page before gives it; the deep page is the last full one.
  const fullPages = Math.floor(most / limit);
  let path = firstPath;
  for (let page = 1; page < fullPages; page += 1) {
    const next = nextPathIn(await get(path));
    if (!next) throw new Error(`the walk of ${user} ended before page ${page + 1}`);
    path = next;
  }
  return { user, firstPath, deepNextPath: path, deepOffset: (fullPages - 1) * limit };
}
