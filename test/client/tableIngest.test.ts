import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ImportWaitTimeout, ProblemError } from '../../src/client/index.js';
import { collect, startClientServer } from './clientServer.js';

/**
 * `client.tables.ingest` against a real server: the push sent once with its options, the import
 * it answers waited for until finished, the records read back; problems thrown, and a wait
 * that ends at its deadline.
 */
test('ingest pushes the records, and finished() waits for the import; the records are then read back', async (t) => {
  const env = await startClientServer(t, { users: 3 });
  const client = env.client();
  const pushed = await client.tables.ingest('deals', [{ id: 'acme-new', name: 'New', owner_id: 'u1', amount: 5, amount_currency: 'EUR' }], {
    all: true,
    idempotencyKey: 'ingest-1',
  });
  assert.match(pushed.importId, /^imp_/);
  const done = await pushed.finished({ timeoutMs: 60_000, intervalMs: 20 });
  assert.equal(done.status, 'finished');
  assert.deepEqual(done.data_tables_details.map((table) => [table.data_table_key, table.number_of_records, table.error, table.ignored_fields]), [['deals', 1, null, []]]);
  const hasError: boolean = done.has_error;
  assert.equal(hasError, false);
  assert.deepEqual((await collect(client.tables.records('deals'))).map((record) => record.id), ['acme-new']);
  assert.equal((await pushed.state()).status, 'finished');
  const [push] = env.sent;
  assert.equal(`${push!.method} ${push!.url.slice(env.server.url.length)}`, 'POST /v1/tables/deals/records/bulk?all=true');
  const again = await client.tables.ingest('deals', [{ id: 'acme-new', name: 'New', owner_id: 'u1', amount: 5, amount_currency: 'EUR' }], {
    all: true,
    idempotencyKey: 'ingest-1',
  });
  assert.equal(again.importId, pushed.importId, 'the key was sent: the first import answered');

  const refused = await client.tables.ingest('nope', [{ id: 'x' }]).catch((e: unknown) => e);
  assert.ok(refused instanceof ProblemError && refused.status === 404, String(refused));

  const waiting = await client.tables.ingest('deals', [{ id: 'later' }], { debounce: 3600 });
  const late = await waiting.finished({ timeoutMs: 50, intervalMs: 10 }).catch((e: unknown) => e);
  assert.ok(late instanceof ImportWaitTimeout, String(late));
  assert.equal(late.last.status, 'scheduled');
});
