import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { contractDocument } from '../../src/http/document.js';
import { createLogger } from '../../src/http/logging.js';
import { runInProcess } from '../cli/cliProcess.js';
import { exchange, serveDatabase, tempDatabase } from '../support/harness.js';
import { until } from '../support/until.js';

/**
 * The document's examples work against `make demo`'s data: the demo tenant seeded as the
 * Makefile seeds it (same tenant, same default seed, same record count; the command lines run in
 * this process, as inProcess.test.ts proves the binary answers them), served by a real server.
 */
type Json = Record<string, any>;
const { definition } = contractDocument();
const components = definition.components as Json;
const paths = definition.paths as Json;
const makefile = readFileSync(new URL('../../Makefile', import.meta.url), 'utf8');
const demoRecords = /^DEMO_RECORDS \?= (\d+)$/m.exec(makefile)![1]!;
const demoSeed = /\$\(BIN\) seed --db \$\(DEMO_DB\) (.+?); fi$/m.exec(makefile)![1]!.replace('$(DEMO_RECORDS)', demoRecords).split(' ');
const DOCUMENTED_BASE = 'http://127.0.0.1:8080';

/** Every string anywhere in `value`. */
const stringsIn = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(stringsIn) : [];

/** `$response.body#/data/0/user` against a response body, for its item `index` instead of 0. */
function evaluate(expression: string, body: unknown, index: number): unknown {
  const pointer = expression.replace(/^\$response\.body#\/data\/0\//, `/data/${index}/`);
  return pointer.split('/').slice(1).reduce<any>((value, token) => value?.[token], body);
}

/** A parameter, through its `$ref`. */
const parameter = (entry: Json): Json => (entry.$ref ? components.parameters[entry.$ref.split('/').pop()] : entry);

test("the document's examples work against make demo's data", { timeout: 120_000 }, async (t) => {
  const { database: dbPath, sql, beforeRemoval } = await tempDatabase(t);
  const seeded = await runInProcess(['seed', '--db', dbPath, ...demoSeed]);
  assert.equal(seeded.code, 0, seeded.stderr);
  const tenant = demoSeed[demoSeed.indexOf('--tenant') + 1]!;
  const key = (await runInProcess(['keys', 'create', '--db', dbPath, '--tenant', tenant])).stdout.trimEnd().split('\n').at(-1)!;
  const server = await serveDatabase(dbPath, { logger: createLogger('warn', process.stderr) });
  beforeRemoval(() => server.close());
  const call = (method: string, path: string, json?: unknown) => exchange(server.url, method, path, { key, json });
  const live = (text: string) => text.replaceAll(DOCUMENTED_BASE, server.url);

  await t.test('every e-mail address in the document is a user of the demo', async () => {
    const emails = [...new Set(stringsIn(definition).filter((text) => /^[^@\s"]+@[a-z0-9.-]+\.[a-z]+$/i.test(text)))];
    assert.ok(emails.length >= 5, emails.join(' '));
    for (const email of emails) assert.equal(await sql.value('SELECT 1 FROM users WHERE email = ? COLLATE NOCASE', email), 1, `${email} is no user of the demo`);
  });

  await t.test('each page example is what its request (named in its summary) answers', async () => {
    const pages = Object.entries(components.examples as Json).filter(([, example]) => /\(GET \S+\)$/.test(example.summary));
    assert.deepEqual(pages.map(([name]) => name).sort(), [
      'DataStructures', 'DealsFields', 'DealsPage', 'DealsSyncPage', 'FilteredReportingPage', 'GroupAttributionsPage',
      'ManagerAttributionsPage', 'ReportingFields', 'ReportingPage', 'Tables', 'V2DealsFields', 'V2DealsPage', 'V2StatementFields', 'V2StatementsPage',
    ]);
    for (const [name, example] of pages) {
      const path = /\(GET (\S+)\)$/.exec(example.summary)![1]!;
      const answer = await call('GET', path);
      assert.equal(answer.status, 200, name);
      // A v2 record's modification time is when the demo was seeded: any time of the right form stands for it.
      const times = (text: string) => text.replace(/"standard\.last_modified_at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/g, '"standard.last_modified_at":"(time)"');
      assert.deepEqual(JSON.parse(times(JSON.stringify(answer.body))), JSON.parse(times(live(JSON.stringify(example.value)))), name);
    }
  });

  await t.test("each list operation's count example is the demo's count, and its parameter examples find records", async () => {
    for (const [template, methods] of Object.entries(paths)) {
      const operation = (methods as Json).get;
      const counted = operation?.responses['200'].content?.['application/json']?.examples?.countOnly;
      if (!counted) continue;
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => (operation.parameters as Json[]).map(parameter).find((p) => p.name === name)!.example);
      const total = await call('GET', `${path}?limit=0`);
      assert.deepEqual(total.body, counted.value, template);
      const query = (operation.parameters as Json[]).map(parameter).filter((p) => p.in === 'query' && p.example !== undefined);
      const search = new URLSearchParams(query.map((p): [string, string] => [p.name, String(p.example)]));
      const page = await call('GET', `${path}?${search}`);
      assert.equal(page.status, 200, `${template}?${search}`);
      assert.ok(page.body.count > 0, `${template}?${search} finds nothing`);
    }
  });

  await t.test('the bulk example request is answered with the bulk example response, and its links read the items back', async () => {
    const put = paths['/v1/users/groups/bulk'].put;
    const written = await call('PUT', '/v1/users/groups/bulk', components.examples.BulkRequest.value);
    assert.equal(written.status, 200, written.text);
    assert.deepEqual(written.body, components.examples.BulkResponse.value);
    for (const [name, link] of Object.entries(put.responses['200'].links as Json)) {
      const item = written.body.data.find((entry: Json) => (link.operationId === 'getManagerAttributions') === 'manager' in entry);
      const index = written.body.data.indexOf(item);
      const query = new URLSearchParams(
        Object.entries(link.parameters as Record<string, string>).map(([param, expression]): [string, string] => [param, String(evaluate(expression, written.body, index))]),
      );
      const target = Object.entries(paths).find(([, methods]) => (methods as Json).get?.operationId === link.operationId)![0];
      const readBack = await call('GET', `${target}?${query}`);
      assert.ok(readBack.body.data.some((entry: Json) => JSON.stringify(entry) === JSON.stringify(item)), `${name}: ${JSON.stringify(item)} not read back`);
    }
  });

  await t.test('the users and managers bulk example requests are answered with their example responses', async () => {
    for (const [path, name] of [['/v1/users/bulk', 'UsersBulk'], ['/v1/users/managers/bulk', 'ManagersBulk']]) {
      const written = await call('PUT', path!, components.examples[`${name}Request`].value);
      assert.equal(written.status, 200, written.text);
      assert.deepEqual(written.body, components.examples[`${name}Response`].value);
    }
  });

  await t.test('the push example is imported into the demo without an error', async () => {
    const pushed = await call('POST', '/v1/tables/deals/records/bulk', components.examples.DealsPush.value);
    assert.equal(pushed.status, 202, pushed.text);
    const done = await until('the push is imported', async () => {
      const state = (await call('GET', `/v1/imports/${pushed.body.import_id}`)).body.data_import;
      return state.status === 'finished' && state;
    });
    assert.deepEqual(done.data_tables_details[0].error, null);
    assert.equal(done.data_tables_details[0].number_of_records, 2);
    assert.deepEqual([done.has_error, done.data_tables_details[0].ignored_fields], [false, []]);
  });
});
