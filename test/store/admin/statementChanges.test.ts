import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatMonth, parseMonth } from '../../../src/domain/months.js';
import { statementId, type StatementStatus } from '../../../src/domain/statements.js';
import type { Store } from '../../../src/store/store.js';
import type { EndpointSettings } from '../../../src/store/vocabulary/webhookShapes.js';
import { buildFixture } from '../../support/fixture.js';
import { onlyOn, tempDatabase, type Scope, type TempDatabase } from '../../support/harness.js';
import { NO_FAULTS } from '../../../src/domain/webhookFaults.js';

/**
 * Changes of statuses by hand (docs/rules.md#statements) and the webhook calls they write
 * (docs/administration.md#webhook-endpoints), asked of the store on the engine of the run. The
 * fixture's 3 users have 4 statements each: user0 in 2026-01, -04, -07, -10; user1 in -02, -05,
 * -08, -11; user2 in -03, -06, -09, -12; every one is made `validated` first.
 */
const month = (text: string) => parseMonth(text)!;
const email = (i: number) => `user${i}@acme.example`;
const WANTS: EndpointSettings = { url: 'https://receiver.example/hook', events: ['statement.sent_to_payroll'], enabled: true, secretHeader: true, faults: NO_FAULTS };

async function validatedTenant(t: Scope): Promise<TempDatabase & { tenantId: number }> {
  const database = await tempDatabase(t);
  const { tenantId } = await buildFixture(database.store, { tenant: 'acme' });
  const statements = Array.from({ length: 12 }, (_, i) => ({ user_id: `u${i % 3}`, month: month(`2026-${String(i + 1).padStart(2, '0')}`), status: 'validated' as const }));
  await database.store.loadTenant('acme', {}, async (writer) => {
    await writer.setStatementStatuses(statements);
    await writer.finish();
  });
  return { ...database, tenantId };
}

/** Every statement's status, as `email month` → status. */
async function statuses({ sql, tenantId }: TempDatabase & { tenantId: number }): Promise<Record<string, StatementStatus>> {
  const rows = await sql.rows(`SELECT u.email, s.month, s.status FROM statements s JOIN users u ON u.pk = s.user_pk WHERE s.tenant_id = ${tenantId} ORDER BY u.email, s.month`);
  return Object.fromEntries(rows.map(([address, index, status]) => [`${String(address)} ${formatMonth(Number(index))}`, status as StatementStatus]));
}

/** The outbox's calls, as `endpoint user month state` in order. */
async function calls({ sql, tenantId }: TempDatabase & { tenantId: number }): Promise<string[]> {
  const rows = await sql.rows(`SELECT endpoint_id, user_id, month, state, attempts FROM webhook_calls WHERE tenant_id = ${tenantId} ORDER BY seq`);
  return rows.map(([endpoint, user, index, state, attempts]) => `${String(endpoint)} ${String(user)} ${formatMonth(Number(index))} ${String(state)} ${Number(attempts)}`);
}

async function endpointIds(store: Store) {
  const made = [];
  for (const settings of [WANTS, { ...WANTS, enabled: false }, { ...WANTS, events: [] }]) {
    const endpoint = await store.createWebhookEndpoint('acme', settings);
    if (endpoint === 'unknownTenant') assert.fail('no tenant');
    made.push(endpoint.id);
  }
  return made;
}

test('one statement sent to payroll: its status, and one call per enabled endpoint that wants the event, in one transaction', async (t) => {
  const tenant = await validatedTenant(t);
  const [wanting] = await endpointIds(tenant.store);
  const before = await statuses(tenant);
  const outcome = await tenant.store.changeStatementStatus('acme', 'sent_to_payroll', { statements: [{ user: 'USER0@acme.example', month: month('2026-04') }] });
  assert.deepEqual(outcome, {
    outcome: 'changed',
    changes: [{ id: statementId('u0', month('2026-04')), user: email(0), month: month('2026-04'), from: 'validated', to: 'sent_to_payroll' }],
    calls: 1,
  });
  assert.deepEqual(await statuses(tenant), { ...before, [`${email(0)} 2026-04`]: 'sent_to_payroll' });
  assert.deepEqual(await calls(tenant), [`${wanting} u0 2026-04 pending 0`]);
});

test('a change the lifecycle does not allow, or of a statement that does not exist, changes nothing of any statement listed', async (t) => {
  const tenant = await validatedTenant(t);
  await endpointIds(tenant.store);
  await tenant.store.changeStatementStatus('acme', 'sent_to_payroll', { statements: [{ user: email(0), month: month('2026-01') }] });
  const before = { statuses: await statuses(tenant), calls: await calls(tenant) };
  const refused = await tenant.store.changeStatementStatus('acme', 'sent_to_payroll', {
    statements: [
      { user: email(1), month: month('2026-02') },
      { user: email(0), month: month('2026-01') },
    ],
  });
  assert.deepEqual(refused, {
    outcome: 'refused',
    changes: [{ id: statementId('u0', month('2026-01')), user: email(0), month: month('2026-01'), from: 'sent_to_payroll', to: 'sent_to_payroll' }],
  });
  assert.deepEqual(await tenant.store.changeStatementStatus('acme', 'paid', { statements: [{ user: email(1), month: month('2026-02') }] }), {
    outcome: 'refused',
    changes: [{ id: statementId('u1', month('2026-02')), user: email(1), month: month('2026-02'), from: 'validated', to: 'paid' }],
  });
  const missing = { user: email(1), month: month('2026-01') };
  assert.deepEqual(await tenant.store.changeStatementStatus('acme', 'validated', { statements: [{ user: email(2), month: month('2026-03') }, missing] }), {
    outcome: 'missing',
    statement: missing,
  });
  assert.deepEqual(await tenant.store.changeStatementStatus('acme', 'paid', { user: 'nobody@acme.example' }), { outcome: 'unknownUser' });
  assert.deepEqual(await tenant.store.changeStatementStatus('nobody', 'paid', { user: email(0) }), { outcome: 'unknownTenant' });
  assert.deepEqual({ statuses: await statuses(tenant), calls: await calls(tenant) }, before);
});

test("a user's or a period's statements: those the lifecycle lets change, each once, the calls in order", async (t) => {
  const tenant = await validatedTenant(t);
  const [wanting] = await endpointIds(tenant.store);
  const sent = await tenant.store.changeStatementStatus('acme', 'sent_to_payroll', { user: email(1) });
  assert.equal(sent.outcome, 'changed');
  assert.deepEqual(
    'changes' in sent && sent.changes.map((change) => formatMonth(change.month)),
    ['2026-02', '2026-05', '2026-08', '2026-11'],
  );
  const paid = await tenant.store.changeStatementStatus('acme', 'paid', { period: { start: month('2026-01'), end: month('2026-05') } });
  assert.deepEqual(paid.outcome === 'changed' && [paid.changes.map((change) => `${change.user} ${formatMonth(change.month)}`), paid.calls], [
    [`${email(1)} 2026-02`, `${email(1)} 2026-05`],
    0,
  ]);
  assert.deepEqual(await tenant.store.changeStatementStatus('acme', 'paid', { period: { start: month('2026-01'), end: month('2026-01') } }), {
    outcome: 'changed',
    changes: [],
    calls: 0,
  });
  assert.deepEqual(
    await calls(tenant),
    ['2026-02', '2026-05', '2026-08', '2026-11'].map((m) => `${wanting} u1 ${m} pending 0`),
  );
  const after = await statuses(tenant);
  assert.deepEqual(
    Object.entries(after).filter(([, status]) => status !== 'validated'),
    [
      [`${email(1)} 2026-02`, 'paid'],
      [`${email(1)} 2026-05`, 'paid'],
      [`${email(1)} 2026-08`, 'sent_to_payroll'],
      [`${email(1)} 2026-11`, 'sent_to_payroll'],
    ],
  );
});

test('a call that cannot be written leaves the statuses as they were: the status and its calls, both or neither', async (t) => {
  const tenant = await validatedTenant(t);
  await endpointIds(tenant.store);
  const before = await statuses(tenant);
  await tenant.sql.exec(
    tenant.engine === 'sqlite'
      ? `CREATE TRIGGER refuse_calls BEFORE INSERT ON webhook_calls BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`
      : `CREATE FUNCTION refuse_calls() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
         CREATE TRIGGER refuse_calls BEFORE INSERT ON webhook_calls FOR EACH ROW EXECUTE FUNCTION refuse_calls();`,
  );
  await assert.rejects(tenant.store.changeStatementStatus('acme', 'sent_to_payroll', { user: email(2) }), /refused by the test/);
  assert.deepEqual(await statuses(tenant), before);
  assert.deepEqual(await calls(tenant), []);
  // The same change without endpoints that want it writes no call, and goes through.
  await tenant.sql.exec(`DELETE FROM webhook_endpoints WHERE tenant_id = ${tenant.tenantId}`);
  assert.equal((await tenant.store.changeStatementStatus('acme', 'sent_to_payroll', { user: email(2) })).outcome, 'changed');
  assert.equal((await statuses(tenant))[`${email(2)} 2026-03`], 'sent_to_payroll');
});

test('a deleted tenant takes its endpoints and calls with it', async (t) => {
  const tenant = await validatedTenant(t);
  await endpointIds(tenant.store);
  await tenant.store.changeStatementStatus('acme', 'sent_to_payroll', { user: email(0) });
  assert.equal(await tenant.store.deleteTenant('acme'), true);
  assert.equal(Number(await tenant.sql.value('SELECT count(*) FROM webhook_endpoints')), 0);
  assert.equal(Number(await tenant.sql.value('SELECT count(*) FROM webhook_calls')), 0);
});

// PostgreSQL only: on SQLite one write lock covers the database, and a store takes it for an
// administration write on the event loop's thread, so a second one begun in the same process
// while the first is open waits there until its busy timeout (the first cannot finish meanwhile).
test('the same statement sent twice at once: one change and its calls, the other refused', { skip: onlyOn('postgres') }, async (t) => {
  const tenant = await validatedTenant(t);
  const [wanting] = await endpointIds(tenant.store);
  const send = () => tenant.store.changeStatementStatus('acme', 'sent_to_payroll', { statements: [{ user: email(2), month: month('2026-09') }] });
  const outcomes = await Promise.all([send(), send(), tenant.store.changeStatementStatus('acme', 'sent_to_payroll', { user: email(2) })]);
  const changed = outcomes.flatMap((outcome) => (outcome.outcome === 'changed' ? outcome.changes.map((change) => formatMonth(change.month)) : []));
  assert.deepEqual(changed.filter((m) => m === '2026-09'), ['2026-09'], JSON.stringify(outcomes));
  assert.equal(outcomes.filter((outcome) => outcome.outcome === 'refused').length >= 1, true);
  assert.deepEqual(
    (await calls(tenant)).filter((call) => call.includes(' 2026-09 ')),
    [`${wanting} u2 2026-09 pending 0`],
  );
});
