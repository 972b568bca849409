import { storedCallOf, type DeliverySteps, type DueCall, type StoredCall, type StoredCallRow } from '../engine/deliverySteps.js';
import type { CallQueue } from '../vocabulary/callLogShapes.js';
import type { CallAttempt } from '../vocabulary/deliveryShapes.js';
import type { Db } from './db.js';
import { statementRecordsRead } from './v2Reads.js';


/** The calls due across tenants (`EngineReads.dueWebhookCalls`), on one connection. */
export function dueCallReads(db: Db): (now: string, limit: number) => DueCall[] {
  const due = db.prepare<{ now: string; limit: number }, DueCall>(
    `SELECT c.tenant_id AS tenantId, c.id FROM webhook_calls c
     WHERE c.state = 'pending' AND c.next_attempt_at <= @now AND (c.lease_until IS NULL OR c.lease_until <= @now)
       AND NOT EXISTS (SELECT 1 FROM webhook_calls e WHERE e.tenant_id = c.tenant_id AND e.state = 'pending' AND e.seq < c.seq
                         AND e.endpoint_id = c.endpoint_id AND e.user_id = c.user_id AND e.month = c.month)
     ORDER BY c.next_attempt_at LIMIT @limit`,
  );
  return (now, limit) => due.all({ now, limit });
}

/** The pending calls across tenants (`EngineReads.webhookQueue`), along the partial index `webhook_calls_waiting`. */
export function callQueueRead(db: Db): () => CallQueue {
  const queue = db.prepare<[], CallQueue>(
    `SELECT count(*) AS pending, min(coalesce(resent_at, created_at)) AS oldestSince FROM webhook_calls WHERE state = 'pending'`,
  );
  return () => queue.get()!;
}

/**
 * The outbox's steps for the delivery worker on SQLite (migrations 21 and 23), inside the
 * caller's write transaction. A claim is a compare-and-set on the call's lease.
 */
export function deliveryStepsOn(db: Db): { deliverySteps(): DeliverySteps } {
  const claim = db.prepare<{ tenant: number; id: string; owner: string; now: string; until: string }>(
    `UPDATE webhook_calls SET lease_owner = @owner, lease_until = @until
     WHERE tenant_id = @tenant AND id = @id AND state = 'pending' AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until <= @now)`,
  );
  const call = db.prepare<{ tenant: number; id: string; now: string }, StoredCallRow>(
    `SELECT c.event, c.created_at AS createdAt, c.attempts, c.series_from AS seriesFrom, c.user_id AS userId, c.month, e.id AS endpointId, e.url, e.secret_header AS secretHeader,
       e.secret, e.signing_secret AS signingSecret,
       CASE WHEN e.previous_until > @now THEN e.previous_signing_secret END AS previousSigningSecret, e.faults
     FROM webhook_calls c JOIN webhook_endpoints e ON e.tenant_id = c.tenant_id AND e.id = c.endpoint_id
     WHERE c.tenant_id = @tenant AND c.id = @id`,
  );
  const statement = db.prepare<[number, string, number], { userPk: number; email: string; fieldsV2: string }>(
    `SELECT u.pk AS userPk, u.email, s.fields_v2 AS fieldsV2 FROM users u JOIN statements s ON s.tenant_id = u.tenant_id AND s.user_pk = u.pk
     WHERE u.tenant_id = ? AND u.id = ? AND s.month = ?`,
  );
  const records = statementRecordsRead(db);
  const insertAttempt = db.prepare<CallAttempt>(
    `INSERT INTO webhook_attempts (tenant_id, call_id, attempt, at, duration_ms, status, error, answer_head, body, fault)
     SELECT @tenantId, @callId, @attempt, @at, @durationMs, @status, @error, @answerHead, @body, @fault
     WHERE EXISTS (SELECT 1 FROM webhook_calls WHERE tenant_id = @tenantId AND id = @callId)
     ON CONFLICT DO NOTHING`,
  );
  const settle = db.prepare<CallAttempt>(
    `UPDATE webhook_calls SET state = @state, attempts = @attempt, next_attempt_at = @nextAttemptAt, lease_owner = NULL, lease_until = NULL
     WHERE tenant_id = @tenantId AND id = @callId AND lease_owner = @owner`,
  );
  // A duplicate sent for a fault follows its call's delivery, whose record let the claim go: it counts as an attempt, and the call stays delivered.
  const countDuplicate = db.prepare<CallAttempt>(
    `UPDATE webhook_calls SET attempts = @attempt WHERE tenant_id = @tenantId AND id = @callId AND state = 'delivered' AND attempts = @attempt - 1`,
  );
  const steps: DeliverySteps = {
    claimCall(tenant, id, owner, now, until): StoredCall | undefined {
      if (claim.run({ tenant, id, owner, now, until }).changes === 0) return undefined;
      return storedCallOf(call.get({ tenant, id, now })!);
    },
    callStatement(tenant, userId, month) {
      const found = statement.get(tenant, userId, month);
      if (!found) return undefined;
      const { count, json } = records(tenant, found.userPk, month);
      return { userId, email: found.email, month, fieldsV2: found.fieldsV2, records: json, recordCount: count };
    },
    recordAttempt(attempt) {
      insertAttempt.run(attempt);
      (attempt.fault === 'duplicate' ? countDuplicate : settle).run(attempt);
    },
  };
  return { deliverySteps: () => steps };
}
