import { faultsOfStored, storedFaults } from '../../domain/webhookFaults.js';
import type { StoredStatement, StatusChangeSteps, WebhookSteps } from '../engine/webhookSteps.js';
import type { WebhookEndpoint } from '../vocabulary/webhookShapes.js';
import { callLogStepsOn } from './callLogSteps.js';
import type { Db } from './db.js';

type EndpointRow = Omit<WebhookEndpoint, 'events' | 'enabled' | 'secretHeader' | 'faults'> & { events: string; enabled: number; secretHeader: number; faults: string | null };

const ENDPOINT_COLUMNS = 'id, url, events, enabled, secret_header AS secretHeader, created_at AS createdAt, previous_until AS previousUntil, faults';
const STATEMENT_COLUMNS = 'u.pk AS userPk, u.id AS userId, u.email, s.month, s.status';

const endpointOf = (row: EndpointRow): WebhookEndpoint => ({
  ...row,
  events: JSON.parse(row.events) as WebhookEndpoint['events'],
  enabled: row.enabled === 1,
  secretHeader: row.secretHeader === 1,
  faults: faultsOfStored(row.faults),
});

/**
 * Statuses changed by hand and webhook endpoints (migration 21) on SQLite, prepared once per
 * connection; each step runs inside the caller's write transaction.
 */
export function webhookStepsOn(db: Db): { statusChangeSteps(tenantId: number): StatusChangeSteps; webhookSteps(tenantId: number): WebhookSteps } {
  const statementOf = db.prepare<[number, string, number], StoredStatement>(
    `SELECT ${STATEMENT_COLUMNS} FROM users u JOIN statements s ON s.tenant_id = u.tenant_id AND s.user_pk = u.pk
     WHERE u.tenant_id = ? AND u.email = ? COLLATE NOCASE AND s.month = ?`,
  );
  const hasUser = db.prepare<[number, string], number>('SELECT 1 FROM users WHERE tenant_id = ? AND email = ? COLLATE NOCASE').pluck();
  const ofUser = db.prepare<[number, string, string], StoredStatement>(
    `SELECT ${STATEMENT_COLUMNS} FROM users u JOIN statements s ON s.tenant_id = u.tenant_id AND s.user_pk = u.pk
     WHERE u.tenant_id = ? AND u.email = ? COLLATE NOCASE AND s.status = ? ORDER BY s.month`,
  );
  const inPeriod = db.prepare<{ tenant: number; start: number; end: number; status: string }, StoredStatement>(
    `SELECT ${STATEMENT_COLUMNS} FROM statements s JOIN users u ON u.tenant_id = s.tenant_id AND u.pk = s.user_pk
     WHERE s.tenant_id = @tenant AND s.month BETWEEN @start AND @end AND s.status = @status ORDER BY u.email COLLATE NOCASE, s.month`,
  );
  const wanting = db
    .prepare<[number, string], string>(
      'SELECT id FROM webhook_endpoints WHERE tenant_id = ? AND enabled = 1 AND EXISTS (SELECT 1 FROM json_each(events) WHERE value = ?) ORDER BY id',
    )
    .pluck();
  const insertCall = db.prepare<{ tenant: number; id: string; endpointId: string; event: string; userId: string; month: number; createdAt: string }>(
    `INSERT INTO webhook_calls (tenant_id, id, seq, endpoint_id, event, user_id, month, created_at, state, next_attempt_at)
     VALUES (@tenant, @id, (SELECT ifnull(max(seq), 0) + 1 FROM webhook_calls WHERE tenant_id = @tenant), @endpointId, @event, @userId, @month, @createdAt, 'pending', @createdAt)`,
  );
  const insertEndpoint = db.prepare(
    `INSERT INTO webhook_endpoints (tenant_id, id, url, events, enabled, secret_header, secret, signing_secret, created_at, faults)
     VALUES (@tenant, @id, @url, @events, @enabled, @secretHeader, @secret, @signingSecret, @createdAt, @faults)`,
  );
  const endpoints = db.prepare<[number], EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = ? ORDER BY id`);
  const endpoint = db.prepare<[number, string], EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = ? AND id = ?`);
  const update = db.prepare(
    `UPDATE webhook_endpoints SET url = ifnull(@url, url), events = ifnull(@events, events), enabled = ifnull(@enabled, enabled),
       secret_header = ifnull(@secretHeader, secret_header), faults = CASE WHEN @faultsGiven THEN @faults ELSE faults END
     WHERE tenant_id = @tenant AND id = @id`,
  );
  const remove = db.prepare<[number, string]>('DELETE FROM webhook_endpoints WHERE tenant_id = ? AND id = ?');
  const rotate = db.prepare(
    `UPDATE webhook_endpoints SET previous_secret = secret, previous_signing_secret = signing_secret, previous_until = @previousUntil,
       secret = @secret, signing_secret = @signingSecret WHERE tenant_id = @tenant AND id = @id`,
  );
  const dropPending = db.prepare<[number]>(`DELETE FROM webhook_calls WHERE tenant_id = ? AND state = 'pending'`);
  const callLog = callLogStepsOn(db);
  const flag = (value: boolean | undefined) => (value === undefined ? null : Number(value));
  return {
    statusChangeSteps: (tenantId) => ({
      statementOf: (emailKey, month) => statementOf.get(tenantId, emailKey, month),
      hasUser: (emailKey) => hasUser.get(tenantId, emailKey) === 1,
      statementsOfUser: (emailKey, status) => ofUser.all(tenantId, emailKey, status),
      statementsInPeriod: (start, end, status) => inPeriod.all({ tenant: tenantId, start, end, status }),
      endpointsWanting: (event) => wanting.all(tenantId, event),
      insertCalls(calls) {
        for (const call of calls) insertCall.run({ tenant: tenantId, ...call });
      },
    }),
    webhookSteps: (tenantId) => ({
      ...callLog(tenantId),
      insertEndpoint: ({ events, enabled, secretHeader, faults, ...rest }) =>
        void insertEndpoint.run({ tenant: tenantId, ...rest, events: JSON.stringify(events), enabled: Number(enabled), secretHeader: Number(secretHeader), faults: storedFaults(faults) }),
      endpoints: () => endpoints.all(tenantId).map(endpointOf),
      endpoint: (id) => {
        const row = endpoint.get(tenantId, id);
        return row && endpointOf(row);
      },
      updateEndpoint: (id, { url, events, enabled, secretHeader, faults }) =>
        update.run({
          tenant: tenantId,
          id,
          url: url ?? null,
          events: events ? JSON.stringify(events) : null,
          enabled: flag(enabled),
          secretHeader: flag(secretHeader),
          faultsGiven: Number(faults !== undefined),
          faults: faults === undefined ? null : storedFaults(faults),
        }).changes > 0,
      deleteEndpoint: (id) => remove.run(tenantId, id).changes > 0,
      rotateSecrets: (id, { secret, signingSecret }, previousUntil) => rotate.run({ tenant: tenantId, id, secret, signingSecret, previousUntil }).changes > 0,
      dropPendingCalls: () => void dropPending.run(tenantId),
    }),
  };
}
