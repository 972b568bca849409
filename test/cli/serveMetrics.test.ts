import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixtureFile } from '../support/fixture.js';
import { exchange } from '../support/harness.js';
import { samplesOf, seriesKey } from '../support/prometheusText.js';
import { startServe } from '../support/serveProcess.js';
import { databaseFor } from '../support/testDatabases.js';

/**
 * `serve --metrics --workers 2`: every request on a connection of its own, which the primary
 * hands to the workers in turn; a scrape, whichever worker answers it, counts the requests of
 * both.
 */
describe('serve --metrics', () => {
  test('across --workers 2 every scrape shows the requests of all workers', { timeout: 90_000 }, async (t) => {
    const dbPath = await databaseFor(t);
    const { key } = await fixtureFile(dbPath, { tenant: 'acme', records: 5 });
    const server = await startServe(t, dbPath, ['--workers', '2', '--metrics']);
    const close = { Connection: 'close' };
    for (let i = 0; i < 10; i += 1) {
      const page = await exchange(server.url, 'GET', '/v1/reporting?limit=2', { key, headers: { ...close, 'X-Request-Id': `metered-${i}` } });
      assert.equal(page.status, 200);
    }
    const servedBy = new Set(server.logs().filter((line) => String(line.reqId).startsWith('metered-')).map((line) => line.pid));
    assert.equal(servedBy.size, 2, 'both workers served some of the pages');

    for (let scrape = 0; scrape < 2; scrape += 1) {
      const answer = await exchange(server.url, 'GET', '/metrics', { headers: close });
      assert.equal(answer.status, 200);
      const samples = samplesOf(answer.text);
      assert.equal(samples.get(seriesKey('compdata_http_requests_total', { operation: 'getReportingRecords', status: '200' })), 10, `scrape ${scrape}`);
      assert.equal(samples.get(seriesKey('compdata_records_served_total', { operation: 'getReportingRecords' })), 20, `scrape ${scrape}`);
      assert.equal(samples.get(seriesKey('compdata_http_requests_total', { operation: 'getMetrics', status: '200' })) ?? 0, scrape, 'the scrapes before this one');
      assert.ok(samples.get('compdata_database_size_bytes')! > 0);
    }
  });
});
