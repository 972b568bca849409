import { customKeyProblem, tableFieldKeyProblem } from '../domain/fieldKeys.js';
import { monthOfDate, type MonthIndex } from '../domain/months.js';
import {
  renderReportingBody,
  renderUser,
  type ReportingUser,
  type StatementLine,
} from '../domain/reportingJson.js';
import { FIELD_TYPES, renderTableRecord, type TableField, type TableRecordInput } from '../domain/tableJson.js';
import type { Db } from './db.js';
import { dimensionValuesRefresher } from './dimensionValues.js';

/** A write that breaks a rule of the data model; `path` says where (`users[3].email`). */
export class DatasetError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

export interface ReportingLineInput extends StatementLine {
  /** Id of an existing user of the tenant. */
  user_id: string;
}

export interface GroupAttributionInput {
  user_id: string;
  dimension: string;
  group: string;
  start: MonthIndex;
  end: MonthIndex | null;
}

export interface ManagerAttributionInput {
  user_id: string;
  manager_id: string;
  start: MonthIndex | null;
  end: MonthIndex | null;
}

/**
 * Writes one tenant's data: metrics, dimensions, users, attributions, reporting records and
 * data tables. It runs no transaction of its own: the caller wraps a whole load in one, so that
 * a failed load leaves nothing behind. Call `finish()` last: it brings the dimension fields of
 * every touched user up to date.
 */
export class TenantWriter {
  private readonly statements;
  private readonly refreshDimensionValues;
  private readonly userPks = new Map<string, number>();
  private readonly touchedUsers = new Set<number>();
  private metricKeys: string[];
  private nextPos: number;

  constructor(
    db: Db,
    private readonly tenantId: number,
  ) {
    this.statements = {
      metricKeys: db.prepare('SELECT key FROM metrics WHERE tenant_id = ? ORDER BY position').pluck(),
      dimensionKeys: db.prepare('SELECT key FROM dimensions WHERE tenant_id = ? ORDER BY position').pluck(),
      insertMetric: db.prepare('INSERT INTO metrics (tenant_id, key, position) VALUES (?, ?, ?)'),
      insertDimension: db.prepare('INSERT INTO dimensions (tenant_id, key, position) VALUES (?, ?, ?)'),
      upsertUser: db.prepare(
        `INSERT INTO users (tenant_id, id, email, json) VALUES (?, ?, ?, ?)
         ON CONFLICT (tenant_id, id) DO UPDATE SET email = excluded.email, json = excluded.json`,
      ),
      userByEmail: db.prepare('SELECT id FROM users WHERE tenant_id = ? AND email = ? COLLATE NOCASE').pluck(),
      userPk: db.prepare('SELECT pk FROM users WHERE tenant_id = ? AND id = ?').pluck(),
      userJson: db.prepare('SELECT json FROM users WHERE pk = ?').pluck(),
      storedUser: db.prepare('SELECT pk, json FROM users WHERE tenant_id = ? AND id = ?'),
      rerenderUserInRecords: db.prepare(
        'UPDATE reporting_records SET body = replace(body, ?, ?) WHERE tenant_id = ? AND user_pk = ?',
      ),
      dimensionPk: db.prepare('SELECT pk FROM dimensions WHERE tenant_id = ? AND key = ?').pluck(),
      insertGroup: db.prepare('INSERT INTO groups (dimension_pk, name) VALUES (?, ?) ON CONFLICT DO NOTHING'),
      groupPk: db.prepare('SELECT pk FROM groups WHERE dimension_pk = ? AND name = ?').pluck(),
      insertGroupAttribution: db.prepare(
        'INSERT INTO group_attributions (user_pk, dimension_pk, group_pk, start_month, end_month) VALUES (?, ?, ?, ?, ?)',
      ),
      insertManagerAttribution: db.prepare(
        'INSERT INTO manager_attributions (user_pk, manager_pk, start_month, end_month) VALUES (?, ?, ?, ?)',
      ),
      maxPos: db.prepare('SELECT max(pos) FROM reporting_records WHERE tenant_id = ?').pluck(),
      insertRecord: db.prepare(
        'INSERT INTO reporting_records (tenant_id, pos, id, user_pk, month, body) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      ensureDimensionValue: db.prepare(
        `INSERT INTO dimension_values (user_pk, month, fragment) VALUES (?, ?, '}') ON CONFLICT DO NOTHING`,
      ),
      insertTable: db.prepare('INSERT INTO data_tables (tenant_id, key, name, fields) VALUES (?, ?, ?, ?)'),
      table: db.prepare('SELECT pk, fields FROM data_tables WHERE tenant_id = ? AND key = ?'),
      maxTablePos: db.prepare('SELECT max(pos) FROM table_records WHERE table_pk = ?').pluck(),
      insertTableRecord: db.prepare('INSERT INTO table_records (table_pk, pos, id, body) VALUES (?, ?, ?, ?)'),
    };
    this.refreshDimensionValues = dimensionValuesRefresher(db);
    this.metricKeys = this.statements.metricKeys.all(tenantId) as string[];
    this.nextPos = ((this.statements.maxPos.get(tenantId) as number | null) ?? -1) + 1;
  }

  /** Adds the metric and dimension keys not defined yet, after the existing ones. */
  defineMetricsAndDimensions(metrics: readonly string[], dimensions: readonly string[]): void {
    const existingMetrics = new Set(this.metricKeys);
    const existingDimensions = new Set(this.statements.dimensionKeys.all(this.tenantId) as string[]);
    const taken = new Set([...existingMetrics, ...existingDimensions]);
    const add = (keys: readonly string[], existing: Set<string>, kind: string) => {
      const added: string[] = [];
      keys.forEach((key, index) => {
        if (existing.has(key)) return;
        const problem = customKeyProblem(key, taken);
        if (problem) throw new DatasetError(`${kind}[${index}]`, `${JSON.stringify(key)} ${problem}`);
        taken.add(key);
        existing.add(key);
        added.push(key);
      });
      return added;
    };
    const newMetrics = add(metrics, existingMetrics, 'metrics');
    const newDimensions = add(dimensions, existingDimensions, 'dimensions');
    if (newMetrics.length > 0 && this.nextPos > 0) {
      throw new DatasetError('metrics', 'new metrics on a tenant that has reporting records need a replace');
    }
    for (const key of newMetrics) {
      this.statements.insertMetric.run(this.tenantId, key, this.metricKeys.length);
      this.metricKeys.push(key);
    }
    const position = existingDimensions.size - newDimensions.length;
    newDimensions.forEach((key, index) => this.statements.insertDimension.run(this.tenantId, key, position + index));
    if (newDimensions.length > 0) this.refreshDimensionValues(this.tenantId);
  }

  upsertUsers(users: readonly ReportingUser[]): void {
    users.forEach((user, index) => {
      const owner = this.statements.userByEmail.get(this.tenantId, user.email) as string | undefined;
      if (owner !== undefined && owner !== user.id) {
        throw new DatasetError(`users[${index}].email`, `${user.email} belongs to user ${owner}`);
      }
      const json = renderUser(user);
      const stored = this.statements.storedUser.get(this.tenantId, user.id) as { pk: number; json: string } | undefined;
      this.statements.upsertUser.run(this.tenantId, user.id, user.email, json);
      if (stored && stored.json !== json) {
        // The user object is part of each stored record body: rewrite it there too.
        this.statements.rerenderUserInRecords.run(`"user":${stored.json}`, `"user":${json}`, this.tenantId, stored.pk);
        this.userJsonCache.delete(stored.pk);
      }
    });
  }

  addGroupAttributions(items: readonly GroupAttributionInput[]): void {
    items.forEach((item, index) => {
      const userPk = this.userPk(item.user_id, `group_attributions[${index}].user_id`);
      const dimensionPk = this.statements.dimensionPk.get(this.tenantId, item.dimension) as number | undefined;
      if (dimensionPk === undefined) {
        throw new DatasetError(`group_attributions[${index}].dimension`, `no dimension ${item.dimension}`);
      }
      this.statements.insertGroup.run(dimensionPk, item.group);
      const groupPk = this.statements.groupPk.get(dimensionPk, item.group) as number;
      this.statements.insertGroupAttribution.run(userPk, dimensionPk, groupPk, item.start, item.end);
      this.touchedUsers.add(userPk);
    });
  }

  addManagerAttributions(items: readonly ManagerAttributionInput[]): void {
    items.forEach((item, index) => {
      const userPk = this.userPk(item.user_id, `manager_attributions[${index}].user_id`);
      const managerPk = this.userPk(item.manager_id, `manager_attributions[${index}].manager_id`);
      this.statements.insertManagerAttribution.run(userPk, managerPk, item.start, item.end);
    });
  }

  /** Appends reporting records after the tenant's existing ones (ids must be new). */
  appendReportingRecords(lines: readonly ReportingLineInput[]): void {
    const { insertRecord, ensureDimensionValue } = this.statements;
    for (const line of lines) {
      const path = `reporting[${this.nextPos}]`;
      const userPk = this.userPk(line.user_id, `${path}.user_id`);
      const month = monthOfDate(line.date);
      if (month === undefined) throw new DatasetError(`${path}.date`, 'must be a date YYYY-MM-DD');
      const userJson = this.userJson(userPk);
      let body: string;
      try {
        body = renderReportingBody(line, userJson, this.metricKeys);
      } catch (error) {
        throw new DatasetError(path, (error as Error).message);
      }
      insertRecord.run(this.tenantId, this.nextPos, line.id, userPk, month, body);
      ensureDimensionValue.run(userPk, month);
      this.touchedUsers.add(userPk);
      this.nextPos += 1;
    }
  }

  createDataTable(key: string, name: string, fields: readonly TableField[]): void {
    const taken = new Set<string>();
    fields.forEach((field, index) => {
      const problem = tableFieldKeyProblem(field.key, taken);
      if (problem) throw new DatasetError(`tables.${key}.fields[${index}].key`, problem);
      if (!FIELD_TYPES.includes(field.type)) {
        throw new DatasetError(`tables.${key}.fields[${index}].type`, `must be one of ${FIELD_TYPES.join(', ')}`);
      }
      taken.add(field.key);
    });
    this.statements.insertTable.run(this.tenantId, key, name, JSON.stringify(fields));
  }

  appendTableRecords(tableKey: string, records: readonly TableRecordInput[]): void {
    const table = this.statements.table.get(this.tenantId, tableKey) as { pk: number; fields: string } | undefined;
    if (!table) throw new DatasetError(`tables.${tableKey}`, 'no such data table');
    const fields = JSON.parse(table.fields) as TableField[];
    let pos = ((this.statements.maxTablePos.get(table.pk) as number | null) ?? -1) + 1;
    for (const record of records) {
      let body: string;
      try {
        body = renderTableRecord(fields, record);
      } catch (error) {
        throw new DatasetError(`tables.${tableKey}.records[${pos}]`, (error as Error).message);
      }
      this.statements.insertTableRecord.run(table.pk, pos, record.id, body);
      pos += 1;
    }
  }

  /** Brings the dimension fields of every user touched by this writer up to date. */
  finish(): void {
    this.refreshDimensionValues(this.tenantId, this.touchedUsers);
    this.touchedUsers.clear();
  }

  private readonly userJsonCache = new Map<number, string>();

  private userJson(userPk: number): string {
    let json = this.userJsonCache.get(userPk);
    if (json === undefined) {
      json = this.statements.userJson.get(userPk) as string;
      this.userJsonCache.set(userPk, json);
    }
    return json;
  }

  private userPk(userId: string, path: string): number {
    let pk = this.userPks.get(userId);
    if (pk === undefined) {
      pk = this.statements.userPk.get(this.tenantId, userId) as number | undefined;
      if (pk === undefined) throw new DatasetError(path, `no user with id ${userId}`);
      this.userPks.set(userId, pk);
    }
    return pk;
  }
}
