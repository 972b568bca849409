import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { assertClientBuilt, root } from './builtPackage.js';
import { attributionItems, rawPages, startClientServer } from './clientServer.js';

/**
 * `examples/reportingTotals.ts`, run as a user runs it (its own process, `compdata/client` from
 * the build) against a real server; its printed totals must equal totals computed here from raw
 * requests following `next`.
 */
const run = (env: Record<string, string>) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/reportingTotals.ts'], {
    cwd: root,
    env: { ...process.env, COMPDATA_URL: '', COMPDATA_API_KEY: '', ...env },
    timeout: 60_000,
  });

type Row = { records: number; payment: Map<string, number>; new_arr: Map<string, number> };

/** The totals per `dimension\tgroup`, from raw pages (every record of the tenant). */
function totalsOf(records: any[]): Map<string, Row> {
  const rows = new Map<string, Row>();
  for (const record of records) {
    for (const dimension of ['region', 'segment']) {
      for (const group of record[dimension].length ? record[dimension] : ['(none)']) {
        const row = rows.get(`${dimension}\t${group}`) ?? { records: 0, payment: new Map(), new_arr: new Map() };
        rows.set(`${dimension}\t${group}`, row);
        row.records += 1;
        row.payment.set(record.payment_currency, (row.payment.get(record.payment_currency) ?? 0) + record.payment);
        if (record.new_arr !== null) row.new_arr.set(record.new_arr_currency, (row.new_arr.get(record.new_arr_currency) ?? 0) + record.new_arr);
      }
    }
  }
  return rows;
}

/** The example's output read back: `dimension group records payment new_arr`, amounts as `1.00 EUR, 2.00 USD` or `-`. */
function parseOutput(stdout: string): Map<string, Row> {
  const [header, ...lines] = stdout.trim().split('\n');
  assert.equal(header, 'dimension\tgroup\trecords\tpayment\tnew_arr');
  const amounts = (text: string) =>
    new Map(text === '-' ? [] : text.split(', ').map((amount) => [amount.split(' ')[1]!, Number(amount.split(' ')[0])] as const));
  return new Map(
    lines.map((line) => {
      const [dimension, group, records, payment, newArr] = line.split('\t');
      return [`${dimension}\t${group}`, { records: Number(records), payment: amounts(payment!), new_arr: amounts(newArr!) }];
    }),
  );
}

const rounded = (rows: Map<string, Row>) =>
  [...rows].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, row]) => [key, row.records, [...row.payment].map(([c, v]) => `${v.toFixed(2)} ${c}`).sort(), [...row.new_arr].map(([c, v]) => `${v.toFixed(2)} ${c}`).sort()]);

test('the example walks every record and prints the totals raw requests give', async (t) => {
  assertClientBuilt();
  const env = await startClientServer(t, { users: 5, records: 2345 });
  const put = await env.server.call('PUT', '/v1/users/groups/bulk', { key: env.key, json: { data: attributionItems(env.users) } });
  assert.equal(put.status, 200, put.text);
  const records = (await rawPages(env.server, env.key, '/v1/reporting?limit=500')).flatMap((page) => page.data);
  assert.equal(records.length, 2345, 'more than one page of the client (2000 records)');
  const want = totalsOf(records);
  assert.ok([...want.keys()].filter((key) => key.startsWith('region\t')).length >= 3, 'several region groups');

  const { stdout, stderr } = await run({ COMPDATA_URL: env.server.url, COMPDATA_API_KEY: env.key });
  assert.equal(stderr, '');
  assert.deepEqual(rounded(parseOutput(stdout)), rounded(want));
});

test('the example reports a problem with its request id, and a missing key with usage', async (t) => {
  const env = await startClientServer(t);
  const refused = await run({ COMPDATA_URL: env.server.url, COMPDATA_API_KEY: 'cdk_nope_nope' }).catch((error) => error);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^error: 401 Unauthorized: .* \[request [^\]]+\]\n$/);
  const unset = await run({ COMPDATA_URL: env.server.url }).catch((error) => error);
  assert.equal(unset.code, 2);
  assert.match(unset.stderr, /Set COMPDATA_API_KEY/);
});
