import type { components } from '../../generated/api.js';
import { formatMonth } from '../domain/months.js';
import { statementId } from '../domain/statements.js';
import type { CallStatement, ClaimedCall } from '../store/vocabulary/deliveryShapes.js';

type StatementOfBody = components['schemas']['StatementWebhookBody']['data']['statement'];
type OmittedRecords = NonNullable<components['schemas']['StatementWebhookBody']['data']['records_omitted']>;

/** The largest body a call carries with its records: 1 MiB (docs/administration.md#delivery). */
const BODY_CAP_BYTES = 1024 * 1024;

/** The statement as the body names it, its status and total from the v2 fields its records carry. */
function statementOfBody(statement: CallStatement): StatementOfBody {
  const fields = JSON.parse(`{${statement.fieldsV2.slice(1)}}`) as { 'standard.status': StatementOfBody['status']; 'standard.total_commission': StatementOfBody['total_commission'] };
  return {
    id: statementId(statement.userId, statement.month),
    user: { id: statement.userId, email: statement.email },
    month: formatMonth(statement.month),
    status: fields['standard.status'],
    total_commission: fields['standard.total_commission'],
  };
}

/** Where the statement's records are read when the body leaves them out: its user's lines of its month. */
function omitted(statement: CallStatement): OmittedRecords {
  const month = formatMonth(statement.month);
  const [year, number] = month.split('-').map(Number) as [number, number];
  const lastDay = new Date(Date.UTC(year, number, 0)).getUTCDate();
  const query = new URLSearchParams({ user: statement.email, date_from: `${month}-01`, date_to: `${month}-${String(lastDay).padStart(2, '0')}` });
  return { count: statement.recordCount, reason: 'body_too_large', read: `/v1/reporting?${query.toString()}` };
}

/**
 * The body of a call (the contract's `StatementWebhookBody`): the event, when it happened, the
 * statement and its records as the v2 read renders them now, the rendered texts joined as they
 * are. Past `capBytes`, the records are left out and `records_omitted` says how many and where
 * to read them.
 */
export function webhookBody(call: ClaimedCall & { statement: CallStatement }, capBytes = BODY_CAP_BYTES): string {
  const head = `{"type":${JSON.stringify(call.event)},"timestamp":${JSON.stringify(call.createdAt)},"data":{"statement":${JSON.stringify(statementOfBody(call.statement))}`;
  const whole = `${head},"records":[${call.statement.records}]}}`;
  if (Buffer.byteLength(whole) <= capBytes) return whole;
  return `${head},"records":[],"records_omitted":${JSON.stringify(omitted(call.statement))}}}`;
}
