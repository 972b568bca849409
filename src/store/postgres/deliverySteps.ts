import { storedCallOf, type DeliverySteps, type DueCall, type StoredCallRow } from '../engine/deliverySteps.js';
import type { CallQueue } from '../vocabulary/callLogShapes.js';
import { firstRow, rowsOf, run, statement, type Queryable } from './connection.js';
import { statementRecordsOf } from './v2Reads.js';

/**
 * The outbox's steps for the delivery worker on PostgreSQL (migrations 25 to 31, as
 * ../sqlite/deliverySteps.ts). Only the search for due calls spans tenants (a read of every
 * shard on Citus); every other statement names its tenant as `$1`, so goes to its node alone.
 */


const due = statement<[string, number], DueCall>(
  `SELECT c.tenant_id AS "tenantId", c.id FROM webhook_calls c
   WHERE c.state = 'pending' AND c.next_attempt_at <= $1 AND (c.lease_until IS NULL OR c.lease_until <= $1)
     AND NOT EXISTS (SELECT 1 FROM webhook_calls e WHERE e.tenant_id = c.tenant_id AND e.state = 'pending' AND e.seq < c.seq
                       AND e.endpoint_id = c.endpoint_id AND e.user_id = c.user_id AND e.month = c.month)
   ORDER BY c.next_attempt_at LIMIT $2`,
);
// The claim and the read of what the call is made of, in one statement: the update returns the row it claimed with its endpoint's.
const claim = statement<[number, string, string, string, string], StoredCallRow>(
  `UPDATE webhook_calls c SET lease_owner = $3, lease_until = $5
   FROM webhook_endpoints e
   WHERE c.tenant_id = $1 AND c.id = $2 AND c.state = 'pending' AND c.next_attempt_at <= $4 AND (c.lease_until IS NULL OR c.lease_until <= $4)
     AND e.tenant_id = $1 AND e.id = c.endpoint_id
   RETURNING c.event, c.created_at AS "createdAt", c.attempts, c.series_from AS "seriesFrom", c.user_id AS "userId", c.month, e.id AS "endpointId", e.url, e.secret_header AS "secretHeader",
     e.secret, e.signing_secret AS "signingSecret",
     CASE WHEN e.previous_until > $4 THEN e.previous_signing_secret END AS "previousSigningSecret", e.faults`,
);
const statementOf = statement<[number, string, number], { userPk: number; email: string; fieldsV2: string }>(
  `SELECT u.pk::float8 AS "userPk", u.email, s.fields_v2 AS "fieldsV2" FROM users u JOIN statements s ON s.tenant_id = u.tenant_id AND s.user_pk = u.pk
   WHERE u.tenant_id = $1 AND u.id = $2 AND s.month = $3`,
);
// The call's row locked first: a deletion of its endpoint or tenant waits for the attempt's record, or went before it.
const callHeld = statement<[number, string], { held: number }>('SELECT 1 AS held FROM webhook_calls WHERE tenant_id = $1 AND id = $2 FOR UPDATE');
const insertAttempt = statement<[number, string, number, string, number, number | null, string | null, string, string, string | null]>(
  `INSERT INTO webhook_attempts (tenant_id, call_id, attempt, at, duration_ms, status, error, answer_head, body, fault)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
);
const settle = statement<[number, string, string, string, number, string]>(
  `UPDATE webhook_calls SET state = $4, attempts = $5, next_attempt_at = $6, lease_owner = NULL, lease_until = NULL
   WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3`,
);
// A duplicate sent for a fault follows its call's delivery, whose record let the claim go: it counts as an attempt, and the call stays delivered.
const countDuplicate = statement<[number, string, number]>(
  `UPDATE webhook_calls SET attempts = $3 WHERE tenant_id = $1 AND id = $2 AND state = 'delivered' AND attempts = $3 - 1`,
);

const queue = statement<[], CallQueue>(
  `SELECT count(*)::float8 AS pending, min(coalesce(resent_at, created_at)) AS "oldestSince" FROM webhook_calls WHERE state = 'pending'`,
);

/** The pending calls across tenants (`EngineReads.webhookQueue`), along the partial index `webhook_calls_waiting`. */
export const callQueueRead = (db: Queryable) => async (): Promise<CallQueue> => (await firstRow(db, queue))!;

/** The calls due across tenants (`EngineReads.dueWebhookCalls`). */
export const dueCallReads =
  (db: Queryable) =>
  (now: string, limit: number): Promise<DueCall[]> =>
    rowsOf(db, due, now, limit);

export const deliverySteps = (db: Queryable): DeliverySteps => ({
  async claimCall(tenant, id, owner, now, until) {
    const row = await firstRow(db, claim, tenant, id, owner, now, until);
    return row && storedCallOf(row);
  },
  async callStatement(tenant, userId, month) {
    const found = await firstRow(db, statementOf, tenant, userId, month);
    if (!found) return undefined;
    const { count, json } = await statementRecordsOf(db, tenant, found.userPk, month);
    return { userId, email: found.email, month, fieldsV2: found.fieldsV2, records: json, recordCount: count };
  },
  async recordAttempt(a) {
    if (!(await firstRow(db, callHeld, a.tenantId, a.callId))) return;
    await run(db, insertAttempt, a.tenantId, a.callId, a.attempt, a.at, a.durationMs, a.status, a.error, a.answerHead, a.body, a.fault);
    if (a.fault === 'duplicate') await run(db, countDuplicate, a.tenantId, a.callId, a.attempt);
    else await run(db, settle, a.tenantId, a.callId, a.owner, a.state, a.attempt, a.nextAttemptAt);
  },
});
