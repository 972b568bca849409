import { faultsOfStored, storedFaults } from '../../domain/webhookFaults.js';
import type { StoredStatement, StatusChangeSteps, WebhookSteps } from '../engine/webhookSteps.js';
import type { WebhookEndpoint } from '../vocabulary/webhookShapes.js';
import { callLogSteps } from './callLogSteps.js';
import { firstRow, rowsOf, run, statement, type Queryable } from './connection.js';
import { tenantRows } from './tenantKeys.js';

/**
 * Statuses changed by hand and webhook endpoints on PostgreSQL (migrations 25 to 28, as
 * ../sqlite/webhookSteps.ts). `$1` is always the tenant, so that on Citus each statement goes to
 * the tenant's node alone.
 */

type EndpointRow = Omit<WebhookEndpoint, 'events' | 'faults'> & { events: string; faults: string | null };

const ENDPOINT_COLUMNS = 'id, url, events, enabled, secret_header AS "secretHeader", created_at AS "createdAt", previous_until AS "previousUntil", faults';
const STATEMENT_COLUMNS = 'u.pk::float8 AS "userPk", u.id AS "userId", u.email, s.month, s.status';

const statementOf = statement<[number, string, number], StoredStatement>(
  `SELECT ${STATEMENT_COLUMNS} FROM users u JOIN statements s ON s.tenant_id = u.tenant_id AND s.user_pk = u.pk
   WHERE u.tenant_id = $1 AND u.email_key = $2 AND s.month = $3`,
);
const hasUser = statement<[number, string], { found: boolean }>('SELECT EXISTS (SELECT 1 FROM users WHERE tenant_id = $1 AND email_key = $2) AS found');
const ofUser = statement<[number, string, string], StoredStatement>(
  `SELECT ${STATEMENT_COLUMNS} FROM users u JOIN statements s ON s.tenant_id = u.tenant_id AND s.user_pk = u.pk
   WHERE u.tenant_id = $1 AND u.email_key = $2 AND s.status = $3 ORDER BY s.month`,
);
const inPeriod = statement<[number, number, number, string], StoredStatement>(
  `SELECT ${STATEMENT_COLUMNS} FROM statements s JOIN users u ON u.tenant_id = s.tenant_id AND u.pk = s.user_pk
   WHERE s.tenant_id = $1 AND s.month BETWEEN $2 AND $3 AND s.status = $4 ORDER BY u.email_key, s.month`,
);
const wanting = statement<[number, string], { id: string }>(
  'SELECT id FROM webhook_endpoints WHERE tenant_id = $1 AND enabled AND events::jsonb ? $2 ORDER BY id',
);
const insertCalls = statement<[number, string[], string[], string[], string[], number[], string[]]>(
  // Beside the tenant's row of tenant_state and its order drawn from its own calls (tenantKeys.ts): one task on Citus.
  `INSERT INTO webhook_calls (tenant_id, id, seq, endpoint_id, event, user_id, month, created_at, state, next_attempt_at)
   SELECT s.tenant_id, c.id, coalesce((SELECT max(k.seq) FROM webhook_calls k WHERE k.tenant_id = $1), 0) + c.n, c.endpoint_id, c.event, c.user_id, c.month,
     c.created_at, 'pending', c.created_at
   FROM ${tenantRows('unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::integer[], $7::text[]) WITH ORDINALITY AS c (id, endpoint_id, event, user_id, month, created_at, n)')}`,
);
const insertEndpoint = statement<[number, string, string, string, boolean, boolean, string, string, string, string | null]>(
  `INSERT INTO webhook_endpoints (tenant_id, id, url, events, enabled, secret_header, secret, signing_secret, created_at, faults)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
);
const endpoints = statement<[number], EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 ORDER BY id`);
const endpoint = statement<[number, string], EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2`);
const update = statement<[number, string, string | null, string | null, boolean | null, boolean | null, boolean, string | null]>(
  `UPDATE webhook_endpoints SET url = coalesce($3, url), events = coalesce($4, events), enabled = coalesce($5, enabled),
     secret_header = coalesce($6, secret_header), faults = CASE WHEN $7 THEN $8 ELSE faults END WHERE tenant_id = $1 AND id = $2`,
);
const remove = [
  statement<[number, string]>('DELETE FROM webhook_calls WHERE tenant_id = $1 AND endpoint_id = $2'),
  statement<[number, string]>('DELETE FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2'),
] as const;
const rotate = statement<[number, string, string, string, string]>(
  `UPDATE webhook_endpoints SET previous_secret = secret, previous_signing_secret = signing_secret, previous_until = $5,
     secret = $3, signing_secret = $4 WHERE tenant_id = $1 AND id = $2`,
);
const dropPending = statement<[number]>(`DELETE FROM webhook_calls WHERE tenant_id = $1 AND state = 'pending'`);

const endpointOf = (row: EndpointRow): WebhookEndpoint => ({ ...row, events: JSON.parse(row.events) as WebhookEndpoint['events'], faults: faultsOfStored(row.faults) });

export const statusChangeSteps = (db: Queryable, tenantId: number): StatusChangeSteps => ({
  statementOf: (emailKey, month) => firstRow(db, statementOf, tenantId, emailKey, month),
  hasUser: async (emailKey) => (await firstRow(db, hasUser, tenantId, emailKey))!.found,
  statementsOfUser: (emailKey, status) => rowsOf(db, ofUser, tenantId, emailKey, status),
  statementsInPeriod: (start, end, status) => rowsOf(db, inPeriod, tenantId, start, end, status),
  endpointsWanting: async (event) => (await rowsOf(db, wanting, tenantId, event)).map((row) => row.id),
  async insertCalls(calls) {
    const column = <K extends keyof (typeof calls)[number]>(key: K) => calls.map((call) => call[key]);
    await run(db, insertCalls, tenantId, column('id'), column('endpointId'), column('event'), column('userId'), column('month'), column('createdAt'));
  },
});

export const webhookSteps = (db: Queryable, tenantId: number): WebhookSteps => ({
  ...callLogSteps(db, tenantId),
  insertEndpoint: async ({ id, url, events, enabled, secretHeader, secret, signingSecret, createdAt, faults }) =>
    void (await run(db, insertEndpoint, tenantId, id, url, JSON.stringify(events), enabled, secretHeader, secret, signingSecret, createdAt, storedFaults(faults))),
  endpoints: async () => (await rowsOf(db, endpoints, tenantId)).map(endpointOf),
  endpoint: async (id) => {
    const row = await firstRow(db, endpoint, tenantId, id);
    return row && endpointOf(row);
  },
  updateEndpoint: async (id, { url, events, enabled, secretHeader, faults }) =>
    (await run(db, update, tenantId, id, url ?? null, events ? JSON.stringify(events) : null, enabled ?? null, secretHeader ?? null, faults !== undefined, faults === undefined ? null : storedFaults(faults))) > 0,
  async deleteEndpoint(id) {
    await run(db, remove[0], tenantId, id);
    return (await run(db, remove[1], tenantId, id)) > 0;
  },
  rotateSecrets: async (id, { secret, signingSecret }, previousUntil) => (await run(db, rotate, tenantId, id, secret, signingSecret, previousUntil)) > 0,
  dropPendingCalls: async () => void (await run(db, dropPending, tenantId)),
});
