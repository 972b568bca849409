import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { contractDocument } from '../../src/http/document.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer } from '../support/harness.js';

/**
 * The API reference in a real browser: Debian's Chromium, driven by playwright-core (which never
 * downloads a browser of its own). Skipped, saying why, where that Chromium is not installed;
 * `.ci/run` installs it, so CI always runs this.
 */
const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium) to run the browser test`;

const operationIds = Object.values(contractDocument().definition.paths as Record<string, Record<string, { operationId: string }>>).flatMap(
  (methods) => Object.values(methods).map((operation) => operation.operationId),
);

test('the API reference in Chromium: every operation listed, "try it" with a typed key returns records, nothing blocked by its policy', { skip, timeout: 180_000 }, async (t) => {
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', records: 25 });
  });
  const profile = mkdtempSync(join(tmpdir(), 'compdata-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS });
  t.after(async () => {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  });
  // Everything the page asks for must come from the server: anything else is refused and noted.
  const elsewhere: string[] = [];
  await browser.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${server.url}/`)) return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  // The page works under its Content-Security-Policy: whatever the policy blocks is counted,
  // from the page's own events and from the console, where Chromium reports each refusal.
  const violations: string[] = [];
  await page.exposeFunction('reportViolation', (what: string) => void violations.push(what));
  await page.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (event) => reportViolation(`${event.violatedDirective} ${event.blockedURI}`));",
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });

  await page.goto(`${server.url}/`);
  assert.equal(page.url(), `${server.url}/docs`, '/ redirects to /docs');
  await page.waitForSelector('.opblock', { timeout: 60_000 });
  for (const operationId of operationIds) {
    assert.equal(await page.locator(`[id$="-${operationId}"].opblock`).count(), 1, `${operationId} is listed`);
  }
  // Both versions: the v2 reads under their tag, beside the v1 read they replace; the table push and its import under tables.
  for (const [tag, operationId, path] of [
    ['reporting', 'getReportingRecords', '/v1/reporting'],
    ['v2', 'getDataStructures', '/v2/data-structures'],
    ['v2', 'getDataStructureFields', '/v2/data-structures/{table_id}/fields'],
    ['v2', 'getV2Statements', '/v2/reporting/{table_id}/statements'],
    ['v2', 'getV2Records', '/v2/reporting/{table_id}/records'],
    ['tables', 'pushTableRecords', '/v1/tables/{data_table_key}/records/bulk'],
    ['tables', 'getImport', '/v1/imports/{import_id}'],
  ]) {
    const block = page.locator(`#operations-${tag}-${operationId}`);
    assert.equal(await block.count(), 1, `${operationId} is listed under ${tag}`);
    assert.equal((await block.locator('.opblock-summary-path').innerText()).replace(/\u200b/g, '').trim(), path);
  }

  await page.click('.auth-wrapper .authorize');
  await page.fill('.auth-container input', fixture.key);
  await page.click('.auth-btn-wrapper .authorize');
  await page.click('.auth-btn-wrapper .btn-done');

  const operation = page.locator('[id$="-getReportingRecords"].opblock');
  await operation.locator('.opblock-summary').click();
  await operation.locator('.try-out__btn').click();
  await operation.locator('tr[data-param-name="limit"] input').fill('3');
  await operation.locator('tr[data-param-name="offset"] input').fill('2');
  await operation.locator('.execute').click();
  const body = operation.locator('.live-responses-table .response-col_description pre').first();
  await body.waitFor({ timeout: 60_000 });
  const status = (await operation.locator('.live-responses-table tr.response .response-col_status').first().innerText()).trim();
  const page3 = JSON.parse(await body.innerText()) as { count: number; data: { id: string }[]; next: string };
  assert.equal(status, '200');
  assert.equal(page3.count, 3);
  assert.deepEqual(page3.data.map((record) => record.id), ['acme-r2', 'acme-r3', 'acme-r4']);
  assert.equal(page3.next, `${server.url}/v1/reporting?limit=3&offset=5`);
  assert.deepEqual(elsewhere, [], 'the page asked for something from elsewhere');
  const policy = (await page.request.get(`${server.url}/docs`)).headers()['content-security-policy'];
  assert.match(policy ?? '', /frame-ancestors 'none'/, 'the page was served under its policy');
  assert.deepEqual(violations, [], 'the policy blocked nothing the page does');
});
