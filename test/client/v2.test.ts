import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProblemError } from '../../src/client/index.js';
import { collect, startClientServer } from './clientServer.js';

/**
 * `client.v2` against a real server: the structures and fields as raw requests get them, and
 * the iterators walk every page by `meta.next_url` exactly as raw requests following it do.
 */
test('client.v2 lists the structures and fields, and walks records by meta.next_url', async (t) => {
  const env = await startClientServer(t, { records: 23, deals: 9 });
  const client = env.client();
  const structures = await client.v2.dataStructures();
  assert.deepEqual(structures, (await env.server.call('GET', '/v2/data-structures', { key: env.key })).body.data);
  const [statements, deals] = structures as [(typeof structures)[number], (typeof structures)[number]];
  const fields = await client.v2.fields(deals.id);
  assert.deepEqual(fields, (await env.server.call('GET', `/v2/data-structures/${deals.id}/fields`, { key: env.key })).body);

  const all = (await env.server.call('GET', `/v2/reporting/${statements.id}/statements`, { key: env.key })).body.data;
  env.sent.length = 0;
  const pages = await collect(client.v2.statements.pages(statements.id, { limit: 5 }));
  assert.equal(pages.length, 5);
  assert.deepEqual(env.sent.slice(1).map((request) => request.url), pages.slice(0, -1).map((page) => page.meta.next_url), 'each later request went to next_url as given');
  assert.deepEqual(await collect(client.v2.statements.records(statements.id, { limit: 5 })), all);
  assert.deepEqual(await collect(client.v2.statements.records(statements.id, { startId: 'acme-r20' })), all.slice(21));
  const later = await collect(client.v2.statements.records(statements.id, { lastModifiedAfter: '2999-01-01T00:00:00Z' }));
  assert.deepEqual(later, []);
  const dealRecords = await collect(client.v2.records.records(deals.id, { limit: 4 }));
  assert.deepEqual(dealRecords.map((record) => record['standard.id']), Array.from({ length: 9 }, (_, i) => `acme-d${i}`));
  const firstRaw = (await env.server.call('GET', `/v2/reporting/${deals.id}/records?limit=4`, { key: env.key })).body;
  assert.deepEqual((await client.v2.records.pages(deals.id, { limit: 4 }).next()).value, firstRaw);

  await assert.rejects(collect(client.v2.records.records(statements.id)), (error) => error instanceof ProblemError && error.status === 404);
  await assert.rejects(
    collect(client.v2.statements.records(statements.id, { startId: 'nothing' })),
    (error) => error instanceof ProblemError && error.status === 400 && error.errors[0]?.pointer === '/query/start_id',
  );
});
