import type { CallLogSteps } from '../engine/callLogSteps.js';
import type { LoggedAttempt, LoggedCall } from '../vocabulary/callLogShapes.js';
import { firstRow, rowsOf, run, statement, type Queryable } from './connection.js';

/**
 * The log of a tenant's webhook calls and their resends on PostgreSQL (migrations 25 to 32, as
 * ../sqlite/callLogSteps.ts). `$1` is always the tenant: on Citus each statement goes to its node alone.
 */

const CALL_COLUMNS = `id, seq::float8 AS seq, endpoint_id AS "endpointId", event, user_id AS "userId", month, state, attempts,
  next_attempt_at AS "nextAttemptAt", created_at AS "createdAt", resent_at AS "resentAt"`;

const calls = statement<[number, number, number, string | null, string | null, string | null], LoggedCall>(
  `SELECT ${CALL_COLUMNS} FROM webhook_calls
   WHERE tenant_id = $1 AND seq < $2 AND ($4::text IS NULL OR endpoint_id = $4) AND ($5::text IS NULL OR event = $5) AND ($6::text IS NULL OR state = $6)
   ORDER BY seq DESC LIMIT $3`,
);
const call = statement<[number, string], LoggedCall>(`SELECT ${CALL_COLUMNS} FROM webhook_calls WHERE tenant_id = $1 AND id = $2`);
const attempts = statement<[number, string], LoggedAttempt>(
  `SELECT attempt, at, duration_ms AS "durationMs", status, error, answer_head AS "answerHead", body FROM webhook_attempts
   WHERE tenant_id = $1 AND call_id = $2 ORDER BY attempt`,
);
const resend = statement<[number, string, string]>(
  `UPDATE webhook_calls SET state = 'pending', next_attempt_at = $3, resent_at = $3, series_from = attempts, lease_owner = NULL, lease_until = NULL
   WHERE tenant_id = $1 AND id = $2 AND state <> 'pending'`,
);

export const callLogSteps = (db: Queryable, tenant: number): CallLogSteps => ({
  calls: ({ endpointId, event, state }, before, limit) => rowsOf(db, calls, tenant, before, limit, endpointId ?? null, event ?? null, state ?? null),
  call: (id) => firstRow(db, call, tenant, id),
  callAttempts: (id) => rowsOf(db, attempts, tenant, id),
  resendCall: async (id, now) => (await run(db, resend, tenant, id, now)) > 0,
});
