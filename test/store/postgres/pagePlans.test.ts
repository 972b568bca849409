import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { statementTexts } from '../../../src/store/postgres/connection.js';
import '../../../src/store/postgres/keyedReads.js';
import '../../../src/store/postgres/pagedReads.js';
import '../../../src/store/postgres/v2Reads.js';
import { buildFixture } from '../../support/fixture.js';
import { onlyOn, tempDatabase } from '../../support/harness.js';
import { ON_CITUS } from '../../support/testDatabases.js';

/**
 * The page statements read a range of positions whose bounds the planner does not estimate from
 * (src/store/postgres/pagedReads.ts): a connection that runs one of them again and again keeps
 * its generic plan, where bounds it estimated from would have it plan every execution (on a
 * tenant with enough records for the range's width to change the estimate). Not on Citus: its
 * coordinator plans every execution of a statement over a distributed table itself.
 */
const RECORDS = 21_000;
/** Whether `text` holds every mark, and none of those written `!mark`. */
const pageOf = (text: string, marks: string[]) => marks.every((mark) => (mark.startsWith('!') ? !text.includes(mark.slice(1)) : text.includes(mark)));
const cases: [string, string[], (at: { tenantId: number; keyId: string; hash: Buffer; from: number; idBefore: string | null }) => unknown[]][] = [
  ['the keyed page (key and records in one statement)', ['k AS MATERIALIZED', 'UNION ALL', 'd.user_json'], (at) => [at.tenantId, at.keyId, at.hash, at.from, 11]],
  ['the page of reporting records', ['(r.head || d.user_json) || (r.tail || coalesce(d.fragment, $4)) AS record'], (at) => [at.tenantId, at.from, 11, '}']],
  ['the v2 page of statement records', ['fields_v2', '!k AS MATERIALIZED'], (at) => [at.tenantId, at.from, 11]],
  ['the keyed v2 page of statement records', ['fields_v2', 'k AS MATERIALIZED'], (at) => [at.tenantId, at.keyId, at.hash, at.idBefore, 11]],
];

test('page statements keep their generic plan on a connection', { skip: onlyOn('postgres') || (ON_CITUS && 'Citus plans each execution itself') }, async (t) => {
  const { store, database, beforeRemoval } = await tempDatabase(t, 'postgres');
  await buildFixture(store, { tenant: 'acme', records: 3 });
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  beforeRemoval(() => client.end());
  const { rows } = await client.query<{ tenant_id: number; id: string; secret_hash: Buffer }>('SELECT tenant_id, id, secret_hash FROM api_keys LIMIT 1');
  const { tenant_id: tenantId, id: keyId, secret_hash: hash } = rows[0]!;
  await client.query(
    `INSERT INTO reporting_records (tenant_id, pos, id, user_pk, month, head, tail, head_v2, tail_v2)
     SELECT r.tenant_id, r.pos + 3 * g, r.id || '-' || g, r.user_pk, r.month, r.head, r.tail, r.head_v2, r.tail_v2
     FROM reporting_records r, generate_series(1, $2::integer) g WHERE r.tenant_id = $1`,
    [tenantId, RECORDS / 3],
  );
  await client.query('ANALYZE reporting_records');

  for (const [name, marks, values] of cases) {
    const texts = [...statementTexts()].filter((text) => text.includes('FROM reporting_records r') && pageOf(text, marks) && /pos >= \(SELECT/.test(text));
    assert.equal(texts.length, 1, `${name}: one statement, found ${texts.join("\n---\n")}`);
    const statementName = `page_${cases.findIndex(([other]) => other === name)}`;
    for (let i = 0; i < 12; i += 1) {
      const from = (i * 7919) % RECORDS;
      const before = await client.query<{ id: string }>('SELECT id FROM reporting_records WHERE tenant_id = $1 AND pos = $2', [tenantId, from - 1]);
      const idBefore = before.rows[0]?.id ?? null;
      const read = await client.query({ name: statementName, text: texts[0]!, values: values({ tenantId, keyId, hash, from, idBefore }) });
      assert.ok(read.rows.length > 0, `${name}: rows read at ${from}`);
    }
    const plans = await client.query<{ generic: string; custom: string }>(
      'SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements WHERE name = $1',
      [statementName],
    );
    const { generic, custom } = plans.rows[0]!;
    assert.ok(Number(generic) >= 6, `${name}: ${generic} generic plans, ${custom} custom ones of 12 executions`);
  }
});
