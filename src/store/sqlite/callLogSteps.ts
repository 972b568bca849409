import type { CallLogSteps } from '../engine/callLogSteps.js';
import type { LoggedAttempt, LoggedCall } from '../vocabulary/callLogShapes.js';
import type { Db } from './db.js';

const CALL_COLUMNS = `id, seq, endpoint_id AS endpointId, event, user_id AS userId, month, state, attempts, next_attempt_at AS nextAttemptAt,
  created_at AS createdAt, resent_at AS resentAt`;

type CallsQuery = { tenant: number; before: number; limit: number; endpoint: string | null; event: string | null; state: string | null };

/**
 * The log of a tenant's webhook calls and their resends on SQLite (migrations 21, 23 and 25),
 * prepared once per connection. The calls are read newest first along `webhook_calls_order`.
 */
export function callLogStepsOn(db: Db): (tenantId: number) => CallLogSteps {
  const calls = db.prepare<CallsQuery, LoggedCall>(
    `SELECT ${CALL_COLUMNS} FROM webhook_calls
     WHERE tenant_id = @tenant AND seq < @before AND (@endpoint IS NULL OR endpoint_id = @endpoint) AND (@event IS NULL OR event = @event)
       AND (@state IS NULL OR state = @state)
     ORDER BY seq DESC LIMIT @limit`,
  );
  const call = db.prepare<[number, string], LoggedCall>(`SELECT ${CALL_COLUMNS} FROM webhook_calls WHERE tenant_id = ? AND id = ?`);
  const attempts = db.prepare<[number, string], LoggedAttempt>(
    `SELECT attempt, at, duration_ms AS durationMs, status, error, answer_head AS answerHead, body FROM webhook_attempts
     WHERE tenant_id = ? AND call_id = ? ORDER BY attempt`,
  );
  const resend = db.prepare<{ tenant: number; id: string; now: string }>(
    `UPDATE webhook_calls SET state = 'pending', next_attempt_at = @now, resent_at = @now, series_from = attempts, lease_owner = NULL, lease_until = NULL
     WHERE tenant_id = @tenant AND id = @id AND state <> 'pending'`,
  );
  return (tenant) => ({
    calls: ({ endpointId, event, state }, before, limit) =>
      calls.all({ tenant, before, limit, endpoint: endpointId ?? null, event: event ?? null, state: state ?? null }),
    call: (id) => call.get(tenant, id),
    callAttempts: (id) => attempts.all(tenant, id),
    resendCall: (id, now) => resend.run({ tenant, id, now }).changes > 0,
  });
}
