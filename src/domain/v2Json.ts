import { createHash } from 'node:crypto';
import { num, type StatementLine } from './reportingJson.js';
import type { TableField } from './tableJson.js';

/**
 * The v2 rendering of records (docs/rules.md#v2-reads), done when a record is written, as v1's
 * is (reportingJson.ts): a v2 read only joins stored texts. Keys carry where a field comes from
 * (`standard.`, `custom.`, `datatable.`; a record's id is `standard.id`); an amount is `{"value": number | null, "currency":
 * code}`; a statement's user is a reference `{"id", "email"}`.
 *
 * A statement's stored v2 body holds every field but the dimensions and the closing brace; the
 * database appends the time of its last change and its dimension fields (`custom.<key>`), which
 * it derives from v1's stored fragment (see each engine's migrations).
 */

/** The user of a statement as v2 shows it. */
export interface UserReference {
  id: string;
  email: string;
}

const str = JSON.stringify;

/** `{"id":…,"email":…}` of a user. */
export const renderUserReference = (user: UserReference): string => `{"id":${str(user.id)},"email":${str(user.email)}}`;

/** The stored v2 body of a statement line: standard fields, then each metric of the tenant in `metricKeys` order. */
export function renderStatementV2(line: StatementLine, user: UserReference, metricKeys: readonly string[]): string {
  let body =
    `{"standard.id":${str(line.id)},"standard.date":${str(line.date)},"standard.plan":${str(line.plan)}` +
    `,"standard.user":${renderUserReference(user)}` +
    `,"standard.payment":${amount(line.payment, line.payment_currency)}` +
    `,"standard.target":${amount(line.target, line.target_currency)}` +
    `,"standard.target_achievement":${num(line.target_achievement)}` +
    `,"standard.on_target_earning":${amount(line.on_target_earning, line.on_target_earning_currency)}` +
    `,"standard.achievement":${amount(line.achievement, line.achievement_currency)}`;
  for (const key of metricKeys) {
    const metric = line.metrics[key];
    body += `,${str(`custom.${key}`)}:${amount(metric?.value ?? null, metric?.currency ?? line.payment_currency)}`;
  }
  return body;
}

/** What a new metric adds to every stored v2 body: its key and an amount of no value, to be followed by the currency and `}`. */
export const newMetricV2Prefix = (key: string): string => `,${str(`custom.${key}`)}:{"value":null,"currency":`;

/**
 * The stored v2 text of a data table's record (given as v1 stores it, with every field), without
 * its closing brace: the id as `standard.id` (as a statement's), the table's fields under
 * `datatable.` keys, and each `amount` field with its `<key>_currency` companion as one amount.
 * The database appends the time of its last change.
 */
export function renderTableRecordV2(fields: readonly TableField[], v1Record: Readonly<Record<string, unknown>>): string {
  let json = `{"standard.id":${str(v1Record.id)}`;
  for (const { key, type } of fields) {
    const value = v1Record[key] ?? null;
    json += `,${str(`datatable.${key}`)}:`;
    json += type === 'amount' ? `{"value":${str(value)},"currency":${str(v1Record[`${key}_currency`] ?? null)}}` : str(value);
  }
  return json;
}

function amount(value: number | null, currency: string): string {
  return `{"value":${num(value)},"currency":${str(currency)}}`;
}


/** A data structure of a tenant: its statement reporting, or one of its data tables. */
export type Structure = { kind: 'statements' } | { kind: 'table'; key: string };

/**
 * The id of a structure: a UUID (version 8) derived from what the structure is, so that it is
 * the same on every server, after every restart and on both engines, and never stored.
 */
export function structureId(structure: Structure): string {
  const name = structure.kind === 'statements' ? 'statement_reporting' : `data_table:${structure.key}`;
  const hex = createHash('sha256').update(`compdata v2 structure ${name}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A `last_modified_*` filter's time as the stored times are written (`YYYY-MM-DDTHH:MM:SS.sssZ`,
 * UTC, milliseconds), rounded `down` (for `last_modified_after`: a stored time is after `t`
 * exactly when it is after `t` rounded down) or up (for `last_modified_before`); `undefined`
 * for a time outside years 0000-9999.
 */
export function storedTimeOf(dateTime: string, direction: 'down' | 'up'): string | undefined {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/i.exec(dateTime);
  if (!match) return undefined;
  const [, seconds, fraction = '', zone] = match;
  if (!isCalendarDate(seconds!.slice(0, 10))) return undefined;
  let ms = Date.parse(`${seconds}.${fraction.slice(0, 3).padEnd(3, '0')}${zone!.toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  if (direction === 'up' && /[1-9]/.test(fraction.slice(3))) ms += 1;
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) return undefined;
  return date.toISOString();
}

/** Whether `YYYY-MM-DD` names a day of the calendar (Date.parse rolls 02-30 over into March). */
function isCalendarDate(date: string): boolean {
  const match = /^(\d{4})-(\d\d)-(\d\d)$/.exec(date);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}
