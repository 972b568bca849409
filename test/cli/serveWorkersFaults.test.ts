import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { fixtureFile } from '../support/fixture.js';
import { exchange } from '../support/harness.js';
import { startServe, type ServeProcess } from '../support/serveProcess.js';
import { databaseFor } from '../support/testDatabases.js';

/**
 * `serve --faults SPEC --workers N`, as the command line sets it up: every worker injects
 * faults, each drawing its own, and with a seed each worker meets the same sequence
 * (docs/operations.md#faults-on-demand-for-testing-clients). Every request goes on a connection
 * of its own, which the primary hands to the workers in turn; which worker served it is read
 * from its log line.
 */
const REQUESTS = 16;

async function logLineOf(server: ServeProcess, requestId: string): Promise<Record<string, any>> {
  for (const started = Date.now(); Date.now() - started < 10_000; await sleep(25)) {
    const line = server.logs().find((entry) => entry.reqId === requestId && entry.msg === 'request');
    if (line) return line;
  }
  throw new Error(`no log line for ${requestId}`);
}

describe('serve --faults across --workers', () => {
  test('each worker injects faults; with a seed, each worker meets the same sequence', { timeout: 120_000 }, async (t) => {
    const dbPath = await databaseFor(t);
    const { key } = await fixtureFile(dbPath, { tenant: 'acme', records: 3 });
    const server = await startServe(t, dbPath, ['--workers', '2', '--faults', '503=50%,seed=42']);

    const health = await exchange(server.url, 'GET', '/healthz', { headers: { Connection: 'close' } });
    assert.deepEqual(health.body, { status: 'ok', faults: '503=50%,seed=42' });

    const byWorker = new Map<number, boolean[]>();
    for (let i = 0; i < REQUESTS; i += 1) {
      const requestId = `faults-workers-${i}`;
      const answer = await exchange(server.url, 'GET', '/v1/reporting?limit=1', { key, headers: { Connection: 'close', 'X-Request-Id': requestId } });
      assert.ok([200, 503].includes(answer.status), `${answer.status}: ${answer.text}`);
      assert.equal(answer.headers.get('Compdata-Fault'), answer.status === 503 ? '503' : null);
      const { pid } = await logLineOf(server, requestId);
      byWorker.set(pid, [...(byWorker.get(pid) ?? []), answer.status === 503]);
    }

    const sequences = [...byWorker.values()];
    assert.equal(sequences.length, 2, 'both workers served some of the requests');
    const [shorter, longer] = sequences.sort((a, b) => a.length - b.length);
    assert.deepEqual(shorter, longer!.slice(0, shorter!.length), 'one seed, one sequence per worker');
    const faulted = sequences.flat().filter(Boolean).length;
    assert.ok(faulted > 0 && faulted < REQUESTS, `503=50% faults some requests and not others: ${faulted} of ${REQUESTS}`);
    const logged = server.logs().filter((entry) => entry.msg === 'fault injected');
    assert.equal(logged.length, faulted, 'each fault is logged');
    assert.equal(new Set(logged.map((entry) => entry.pid)).size, 2, 'by the worker that injected it');
  });
});
