import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEST_ENGINE } from '../support/harness.js';
import { attributionItems, collect, startClientServer } from './clientServer.js';

/**
 * The client keeps the latest consistency token of its writes' answers and sends it on its
 * reads (read-your-writes over read replicas: test/store/postgres/replicas.test.ts). A server
 * over PostgreSQL answers every write with a token; one over SQLite has none to give, and the
 * client then sends none.
 */
test('the client sends the latest token of its writes on its reads, and none before it has one', async (t) => {
  const env = await startClientServer(t, { users: 3 });
  const headersSent: (string | null)[] = [];
  const client = env.client({
    fetch: (request) => {
      headersSent.push(request.headers.get('Compdata-Consistency'));
      return fetch(request);
    },
  });
  await collect(client.attributions.groups.records());
  assert.deepEqual(headersSent, [null], 'no token before a write');

  const tokens: (string | undefined)[] = [];
  for (const item of attributionItems(env.users).slice(0, 2)) {
    await client.attributions.bulkUpsert([item]);
    tokens.push(client.consistency());
  }
  await collect(client.attributions.groups.records());
  const read = headersSent.at(-1);
  if (TEST_ENGINE === 'postgres') {
    assert.ok(tokens.every((token) => token !== undefined && /^\d+$/.test(token)), String(tokens));
    assert.ok(BigInt(tokens[1]!) > BigInt(tokens[0]!), 'the later write has the greater token');
    assert.equal(read, tokens[1], 'the read carries the latest token');
  } else {
    assert.deepEqual(tokens, [undefined, undefined]);
    assert.equal(read, null);
  }
  // Writes never carry a token: they go to the primary.
  assert.equal(headersSent.filter((header, i) => i > 0 && i < 3 && header !== null).length, 0);
});
