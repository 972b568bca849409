import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { contractOperations, fuzzRequest, type FuzzDictionary, type FuzzRequest } from '../support/fuzz/fuzzRequests.js';
import { parsedJson } from '../support/fuzz/jsonText.js';
import { accepts } from '../support/fuzz/schemaValues.js';
import { startChildTestServer } from '../support/childServer.js';
import { exchange, type Exchange } from '../support/harness.js';

/**
 * Requests generated from the contract (see test/support/fuzz) against a real server: no
 * answer is a 5xx, every answer is one the contract declares (status, headers, body: checked by
 * the harness on every exchange), no 200 accepts a body the contract's schema refuses, and the
 * server still answers at the end. The requests go one after another over a kept-alive
 * connection, as clients send them; a new one where the server closed the last (after its
 * answers to requests it cannot parse, which say `Connection: close`).
 * Replay a run with `FUZZ_SEED=<seed> FUZZ_RUNS=<runs> [FUZZ_PATH=<path>]` (printed on failure);
 * `FUZZ_TRACE=1` prints each request and its status.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const TRACE = process.env.FUZZ_TRACE !== undefined;

test(`${RUNS} requests derived from the contract break no rule of it (seed ${SEED})`, { timeout: 600_000 }, async (t) => {
  let acme!: Fixture;
  let globex!: Fixture;
  const server = await startChildTestServer(t, [], async (store) => {
    acme = await buildFixture(store, { tenant: 'acme', users: 12, records: 60, deals: 9 });
    globex = await buildFixture(store, { tenant: 'globex', users: 3, records: 5 });
    await store.loadTenant('globex', {}, (writer) => writer.defineDataTable('forecasts', 'F', []));
  });
  const revoked = (await server.store.createKey('acme')).key;
  await server.store.revokeKey(revoked);
  const emails = Array.from({ length: acme.users }, (_, i) => `user${i}@acme.example`);
  const structures = (await server.call('GET', '/v2/data-structures', { key: acme.key })).body.data as { id: string; links: { records: string } }[];
  const firstStatements = await server.call('GET', `${new URL(structures[0]!.links.records).pathname}?limit=3`, { key: acme.key });
  const recordIds = (firstStatements.body.data as Record<string, string>[]).map((record) => record['standard.id']!);
  const dictionary: FuzzDictionary = {
    validKey: acme.key,
    badKeys: [revoked, globex.key.slice(0, -1) + (globex.key.endsWith('A') ? 'B' : 'A')],
    values: {
      user: [...emails, emails[1]!.toUpperCase(), 'user0@globex.example'],
      email: [...emails, emails[2]!.toUpperCase(), 'new.user@acme.example'],
      manager: emails,
      group_dimension: ['region', 'segment', 'unknown'],
      group: ['EMEA', 'APAC'],
      data_table_key: ['deals', 'forecasts'],
      date_from: ['2026-01-15', '2026-03-01', '0000-01-01'],
      date_to: ['2026-01-14', '2026-06-30', '9999-12-31'],
      plan: ['AE 2026', 'nothing'],
      table_id: [...structures.map((structure) => structure.id), '00000000-0000-8000-8000-000000000000'],
      start_id: [...recordIds, 'deal-1', 'nothing'],
    },
  };
  t.diagnostic(`replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} node --import tsx --test test/http/fuzz.test.ts`);

  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  const tally = new StatusTally();
  const started = performance.now();
  const property = fc.asyncProperty(fuzzRequest(contractOperations(), dictionary), async (request) => {
    const response = await send(server.url, request, agent);
    tally.count(request, response.status);
    assert.ok(response.status < 500, `${response.status}: ${response.text.slice(0, 300)}`);
    const operation = request.operation;
    if (response.status === 200 && operation?.body && request.method === operation.method) {
      assert.ok(accepts(operation.body, parsedJson(request.body ?? '')), 'a 200 for a body the schema refuses');
    }
  });
  try {
    await fc.assert(property, { seed: SEED, numRuns: RUNS, includeErrorInReport: true, ...(process.env.FUZZ_PATH && { path: process.env.FUZZ_PATH }) });
  } catch (error) {
    throw new Error(`replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} (and FUZZ_PATH below)\n${(error as Error).message}`, { cause: error });
  }
  t.diagnostic(`${tally.total} requests in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const line of tally.lines()) t.diagnostic(line);
  assert.ok(tally.total >= RUNS, `at least ${RUNS} requests were sent`);

  assert.equal((await server.call('GET', '/healthz')).status, 200, 'the server still answers');
  const page = await server.call('GET', '/v1/reporting?limit=5', { key: acme.key });
  assert.deepEqual([page.status, page.body.count], [200, 5]);
});

async function send(base: string, request: FuzzRequest, agent: Agent): Promise<Exchange> {
  if (TRACE) console.log(request.method, request.path.slice(0, 200), JSON.stringify(request.headers), request.body?.length ?? 0);
  const response = await exchange(base, request.method, request.path, { headers: request.headers, raw: request.body, chunked: request.chunked, agent });
  if (TRACE) console.log(`  -> ${response.status}`);
  return response;
}

/** How many answers of each status each operation got (stray requests apart). */
class StatusTally {
  private readonly byOperation = new Map<string, Record<number, number>>();
  total = 0;

  count(request: FuzzRequest, status: number): void {
    const name = request.operation ? `${request.operation.method} ${request.operation.template}` : 'stray requests';
    const statuses = this.byOperation.get(name) ?? {};
    statuses[status] = (statuses[status] ?? 0) + 1;
    this.byOperation.set(name, statuses);
    this.total += 1;
  }

  lines(): string[] {
    return [...this.byOperation].map(([name, statuses]) => `  ${name}: ${JSON.stringify(statuses)}`);
  }
}
