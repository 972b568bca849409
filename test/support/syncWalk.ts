import assert from 'node:assert/strict';
import type { TestServer } from './harness.js';

type Page = { count: number; data: { id: string }[]; next?: string; sync_token?: string };

/**
 * Follows `next` from `path` to the last page: the records in order and the last page's
 * `sync_token`. `betweenPages`, when given, runs after each page that has a next one, before it is read.
 */
export async function walk(
  server: TestServer,
  key: string,
  path: string,
  betweenPages?: () => Promise<void>,
): Promise<{ records: Record<string, unknown>[]; token: string; pages: number }> {
  const records: Record<string, unknown>[] = [];
  let page: Page;
  let pages = 0;
  for (let at = path; ; at = page.next.slice(server.url.length)) {
    const response = await server.call('GET', at, { key });
    assert.equal(response.status, 200, response.text);
    page = response.body as Page;
    pages += 1;
    records.push(...(page.data as Record<string, unknown>[]));
    if (page.next === undefined) break;
    assert.equal(page.sync_token, undefined, 'sync_token only on the last page');
    assert.match(page.next, /[?&]changed_since=[A-Za-z0-9_-]+/);
    assert.doesNotMatch(page.next, /offset=/);
    await betweenPages?.();
  }
  assert.equal(typeof page.sync_token, 'string', 'the last page carries sync_token');
  return { records, token: page.sync_token!, pages };
}
