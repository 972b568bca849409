import { fragmentV2 } from '../../src/store/postgres/migrations.js';
import type { TestEngine } from './testDatabases.js';

/**
 * Runs `undo`, one of the texts below, a statement at a time: on Citus, some must run alone (a
 * foreign key added beside another subcommand is refused).
 */
export async function runUndo(sql: { exec(text: string): Promise<void> }, undo: string): Promise<void> {
  for (const statement of undo.split(';').filter((text) => text.trim() !== '')) await sql.exec(statement);
}

/**
 * SQL that takes a PostgreSQL database of this build back to before group attributions lost their
 * index by group (migration 42; SQLite has no such step).
 */
export const BEFORE_GROUP_INDEX_DROPPED: Record<TestEngine, string> = {
  sqlite: '',
  postgres: `
    CREATE INDEX group_attributions_by_group ON group_attributions (tenant_id, group_pk);
    UPDATE schema_version SET version = 41;
  `,
};

/**
 * SQL that takes a PostgreSQL database of this build back to before group attributions dropped
 * their foreign keys to `users` and `groups` (migration 41; SQLite has no such step). A constraint
 * per statement: Citus adds no foreign key beside another subcommand.
 */
export const BEFORE_GROUP_KEYS_UNHELD: Record<TestEngine, string> = {
  sqlite: '',
  postgres: `${BEFORE_GROUP_INDEX_DROPPED.postgres}
    ALTER TABLE group_attributions
      ADD CONSTRAINT group_attributions_tenant_id_user_pk_fkey FOREIGN KEY (tenant_id, user_pk) REFERENCES users (tenant_id, pk) ON DELETE CASCADE;
    ALTER TABLE group_attributions
      ADD CONSTRAINT group_attributions_tenant_id_group_pk_fkey FOREIGN KEY (tenant_id, group_pk) REFERENCES groups (tenant_id, pk) ON DELETE CASCADE;
    UPDATE schema_version SET version = 40;
  `,
};

/**
 * SQL that takes a database of this build back to before a rename left its user's records as they
 * are (SQLite migration 28: whole bodies with the place of the user object in them, the current
 * object in each user-month row once the user changed; PostgreSQL migrations 35 to 40: the
 * object kept once per user and month): each record's whole bodies again, with its user's
 * current object, no column of the place or revision (SQLite), the index by plan on the body
 * (PostgreSQL).
 */
export const BEFORE_USER_OBJECTS: Record<TestEngine, string> = {
  sqlite: `
    UPDATE reporting_records SET body = concat(substr(CAST(body AS BLOB), 1, user_at - 1), d.user_json, substr(CAST(body AS BLOB), user_at + user_len))
      FROM dimension_values d
      WHERE d.user_pk = reporting_records.user_pk AND d.month = reporting_records.month AND d.user_json IS NOT NULL AND d.user_rev <> reporting_records.user_rev;
    ALTER TABLE reporting_records DROP COLUMN user_at;
    ALTER TABLE reporting_records DROP COLUMN user_len;
    ALTER TABLE reporting_records DROP COLUMN user_rev;
    ALTER TABLE dimension_values DROP COLUMN user_rev;
    ALTER TABLE dimension_values DROP COLUMN user_json;
    PRAGMA user_version = 27;
  `,
  postgres: `${BEFORE_GROUP_KEYS_UNHELD.postgres}
    ALTER TABLE reporting_records ADD COLUMN body text, ADD COLUMN body_v2 text;
    UPDATE reporting_records r SET body = r.head || d.user_json || r.tail, body_v2 = r.head_v2 || d.user_v2 || r.tail_v2
      FROM dimension_values d WHERE d.tenant_id = r.tenant_id AND d.user_pk = r.user_pk AND d.month = r.month;
    ALTER TABLE reporting_records ALTER COLUMN body SET NOT NULL,
      DROP COLUMN head, DROP COLUMN tail, DROP COLUMN head_v2, DROP COLUMN tail_v2;
    CREATE INDEX reporting_records_by_plan ON reporting_records
      (tenant_id, (substr(body, strpos(body, ',"plan":') + 8, strpos(body, ',"user":') - strpos(body, ',"plan":') - 8)), pos);
    ALTER TABLE dimension_values DROP COLUMN user_v2, DROP COLUMN user_json;
    UPDATE schema_version SET version = 34;
  `,
};

/**
 * SQL that takes a database of this build back to before group attributions were keyed by user,
 * dimension and start month (SQLite migration 27; PostgreSQL has no such step): a rowid table
 * with a `pk` (given in key order) and its index by user.
 */
export const BEFORE_GROUP_KEY: Record<TestEngine, string> = {
  sqlite: `${BEFORE_USER_OBJECTS.sqlite}
    CREATE TABLE group_attributions_24 (
      pk INTEGER PRIMARY KEY,
      user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
      dimension_pk INTEGER NOT NULL REFERENCES dimensions(pk) ON DELETE CASCADE,
      group_pk INTEGER NOT NULL,
      start_month INTEGER NOT NULL,
      end_month INTEGER,
      CHECK (end_month IS NULL OR end_month >= start_month)
    );
    INSERT INTO group_attributions_24 (user_pk, dimension_pk, group_pk, start_month, end_month)
      SELECT user_pk, dimension_pk, group_pk, start_month, end_month FROM group_attributions ORDER BY user_pk, dimension_pk, start_month;
    DROP TABLE group_attributions;
    ALTER TABLE group_attributions_24 RENAME TO group_attributions;
    CREATE INDEX group_attributions_by_user ON group_attributions (user_pk, dimension_pk, start_month);
    PRAGMA user_version = 26;
  `,
  postgres: BEFORE_USER_OBJECTS.postgres,
};

/**
 * SQL that takes a database of this build back to before faults for receivers' tests (SQLite
 * migration 26, PostgreSQL migrations 33 and 34): no `webhook_endpoints.faults`, no `webhook_attempts.fault`.
 */
const BEFORE_WEBHOOK_FAULTS: Record<TestEngine, string> = {
  sqlite: `${BEFORE_GROUP_KEY.sqlite}
    ALTER TABLE webhook_attempts DROP COLUMN fault;
    ALTER TABLE webhook_endpoints DROP COLUMN faults;
    PRAGMA user_version = 25;
  `,
  postgres: `${BEFORE_GROUP_KEY.postgres}
    ALTER TABLE webhook_attempts DROP COLUMN fault;
    ALTER TABLE webhook_endpoints DROP COLUMN faults;
    UPDATE schema_version SET version = 32;
  `,
};

/**
 * SQL that takes a database of this build back to before a webhook call could be sent again by
 * hand (SQLite migration 25, PostgreSQL migration 32): no `series_from` and `resent_at` in `webhook_calls`.
 */
const BEFORE_CALL_RESENDS: Record<TestEngine, string> = {
  sqlite: `${BEFORE_WEBHOOK_FAULTS.sqlite}
    ALTER TABLE webhook_calls DROP COLUMN resent_at;
    ALTER TABLE webhook_calls DROP COLUMN series_from;
    PRAGMA user_version = 24;
  `,
  postgres: `${BEFORE_WEBHOOK_FAULTS.postgres}
    ALTER TABLE webhook_calls DROP COLUMN resent_at, DROP COLUMN series_from;
    UPDATE schema_version SET version = 31;
  `,
};

/**
 * SQL that takes a database of this build back to before group attributions dropped their index
 * by group and their foreign key to `groups` (SQLite migration 24; PostgreSQL has no such step).
 */
export const BEFORE_GROUP_REFERENCE: Record<TestEngine, string> = {
  sqlite: `${BEFORE_CALL_RESENDS.sqlite}
    CREATE TABLE group_attributions_24 (
      pk INTEGER PRIMARY KEY,
      user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
      dimension_pk INTEGER NOT NULL REFERENCES dimensions(pk) ON DELETE CASCADE,
      group_pk INTEGER NOT NULL REFERENCES groups(pk) ON DELETE CASCADE,
      start_month INTEGER NOT NULL,
      end_month INTEGER,
      CHECK (end_month IS NULL OR end_month >= start_month)
    );
    INSERT INTO group_attributions_24 SELECT pk, user_pk, dimension_pk, group_pk, start_month, end_month FROM group_attributions;
    DROP TABLE group_attributions;
    ALTER TABLE group_attributions_24 RENAME TO group_attributions;
    CREATE INDEX group_attributions_by_user ON group_attributions (user_pk, dimension_pk, start_month);
    CREATE INDEX group_attributions_by_group ON group_attributions (group_pk);
    PRAGMA user_version = 23;
  `,
  postgres: BEFORE_CALL_RESENDS.postgres,
};

/**
 * SQL that takes a database of this build back to before the delivery of webhook calls (SQLite
 * migration 23, PostgreSQL migrations 30 and 31): no `webhook_attempts`, no `webhook_calls_waiting`.
 */
const BEFORE_WEBHOOK_DELIVERY: Record<TestEngine, string> = {
  sqlite: `${BEFORE_GROUP_REFERENCE.sqlite}
    DROP TABLE webhook_attempts;
    DROP INDEX webhook_calls_waiting;
    PRAGMA user_version = 22;
  `,
  postgres: `${BEFORE_GROUP_REFERENCE.postgres}
    DROP TABLE webhook_attempts;
    DROP INDEX webhook_calls_waiting;
    UPDATE schema_version SET version = 29;
  `,
};

/**
 * SQL that takes a database of this build back to before sandbox creates kept their answers for
 * a retry (SQLite migration 22, PostgreSQL migration 29): no `sandbox_requests` table.
 */
const BEFORE_SANDBOX_REQUESTS: Record<TestEngine, string> = {
  sqlite: `${BEFORE_WEBHOOK_DELIVERY.sqlite}
    DROP TABLE sandbox_requests;
    PRAGMA user_version = 21;
  `,
  postgres: `${BEFORE_WEBHOOK_DELIVERY.postgres}
    DROP TABLE sandbox_requests;
    UPDATE schema_version SET version = 28;
  `,
};

/**
 * SQL that takes a database of this build back to before webhooks (SQLite migration 21,
 * PostgreSQL migrations 25 to 28): no `webhook_endpoints`, no `webhook_calls`.
 */
const BEFORE_WEBHOOKS: Record<TestEngine, string> = {
  sqlite: `${BEFORE_SANDBOX_REQUESTS.sqlite}
    DROP TABLE webhook_calls;
    DROP TABLE webhook_endpoints;
    PRAGMA user_version = 20;
  `,
  postgres: `${BEFORE_SANDBOX_REQUESTS.postgres}
    DROP TABLE webhook_calls;
    DROP TABLE webhook_endpoints;
    UPDATE schema_version SET version = 24;
  `,
};

/**
 * SQL that takes a database of this build back to before sandboxes had a time to live (SQLite
 * migration 20, PostgreSQL migrations 23 and 24): no `ttl_seconds` and `expires_at` in
 * `sandbox_recipes`, no `leases`.
 */
export const BEFORE_SANDBOX_TTL: Record<TestEngine, string> = {
  sqlite: `${BEFORE_WEBHOOKS.sqlite}
    DROP TABLE leases;
    DROP INDEX sandbox_recipes_by_expiry;
    ALTER TABLE sandbox_recipes DROP COLUMN expires_at;
    ALTER TABLE sandbox_recipes DROP COLUMN ttl_seconds;
    PRAGMA user_version = 19;
  `,
  postgres: `${BEFORE_WEBHOOKS.postgres}
    DROP TABLE leases;
    ALTER TABLE sandbox_recipes DROP COLUMN expires_at, DROP COLUMN ttl_seconds;
    UPDATE schema_version SET version = 22;
  `,
};

/**
 * SQL that takes a database of this build back to before a copied sandbox kept its created state
 * in the database (SQLite migration 19, PostgreSQL migration 22): no `sandbox_recipes.origin_id`.
 */
const BEFORE_SANDBOX_ORIGINS: Record<TestEngine, string> = {
  sqlite: `${BEFORE_SANDBOX_TTL.sqlite}
    DROP INDEX sandbox_recipes_by_origin;
    ALTER TABLE sandbox_recipes DROP COLUMN origin_id;
    PRAGMA user_version = 18;
  `,
  postgres: `${BEFORE_SANDBOX_TTL.postgres}
    ALTER TABLE sandbox_recipes DROP COLUMN origin_id;
    UPDATE schema_version SET version = 21;
  `,
};

/**
 * SQL that takes a database of this build back to before a deleted tenant's id was kept from
 * reuse (SQLite migration 18; PostgreSQL's identity never reused one): no `last_deleted_tenant`.
 */
export const BEFORE_LAST_DELETED_TENANT: Record<TestEngine, string> = {
  sqlite: `${BEFORE_SANDBOX_ORIGINS.sqlite}
    DROP TABLE last_deleted_tenant;
    PRAGMA user_version = 17;
  `,
  postgres: BEFORE_SANDBOX_ORIGINS.postgres,
};

/**
 * SQL that takes a database of this build back to before sandboxes kept their recipes (SQLite
 * migration 17, PostgreSQL migration 21): no `sandbox_recipes` table.
 */
const BEFORE_SANDBOX_RECIPES: Record<TestEngine, string> = {
  sqlite: `${BEFORE_LAST_DELETED_TENANT.sqlite}
    DROP TABLE sandbox_recipes;
    PRAGMA user_version = 16;
  `,
  postgres: `${BEFORE_LAST_DELETED_TENANT.postgres}
    DROP TABLE sandbox_recipes;
    UPDATE schema_version SET version = 20;
  `,
};

/**
 * SQL that takes a database of this build back to before statements were kept (SQLite
 * migration 16, PostgreSQL migrations 19 and 20): no `statements` table.
 */
export const BEFORE_STATEMENTS: Record<TestEngine, string> = {
  sqlite: `${BEFORE_SANDBOX_RECIPES.sqlite}
    DROP TABLE statements;
    PRAGMA user_version = 15;
  `,
  postgres: `${BEFORE_SANDBOX_RECIPES.postgres}
    DROP TABLE statements;
    UPDATE schema_version SET version = 18;
  `,
};

/**
 * SQL that takes a database of this build back to before a data table record's v2 text keyed
 * its id `standard.id` (SQLite migration 15, PostgreSQL migration 18): `datatable.id` again.
 */
export const BEFORE_STANDARD_ID: Record<TestEngine, string> = {
  sqlite: `${BEFORE_STATEMENTS.sqlite}
    UPDATE table_records SET body_v2 = '{"datatable.id":' || substr(body_v2, 16);
    PRAGMA user_version = 14;
  `,
  postgres: `${BEFORE_STATEMENTS.postgres}
    UPDATE table_records SET body_v2 = '{"datatable.id":' || substr(body_v2, 16);
    UPDATE schema_version SET version = 17;
  `,
};

/**
 * SQL that takes a database of this build back to before imports ignored the properties that
 * are not fields and imported the lines that fit (SQLite migration 14, PostgreSQL migrations 16
 * and 17): no `ignored_fields`, and a failed table's count of records 0 as it was then stored.
 */
export const BEFORE_IMPORT_WARNINGS: Record<TestEngine, string> = {
  sqlite: `${BEFORE_STANDARD_ID.sqlite}
    ALTER TABLE import_tables DROP COLUMN ignored_fields;
    UPDATE import_tables SET records = 0 WHERE error IS NOT NULL;
    PRAGMA user_version = 13;
  `,
  postgres: `${BEFORE_STANDARD_ID.postgres}
    ALTER TABLE import_tables DROP COLUMN ignored_fields;
    UPDATE import_tables SET records = 0 WHERE error IS NOT NULL;
    UPDATE schema_version SET version = 15;
  `,
};

/**
 * SQL that takes a PostgreSQL database of this build back to before the tenants' write state had
 * a table of its own (migration 10): the columns back in `tenants`, with their values, and the
 * foreign keys that migrations 14 and 15 drop.
 */
const BEFORE_TENANT_STATE = `${BEFORE_IMPORT_WARNINGS.postgres}
    ALTER TABLE table_records ADD FOREIGN KEY (tenant_id, table_pk) REFERENCES data_tables (tenant_id, pk) ON DELETE CASCADE;
    ALTER TABLE removed_records ADD FOREIGN KEY (tenant_id) REFERENCES tenants (id) ON DELETE CASCADE;
    ALTER TABLE tenants ADD COLUMN empty_fragment text NOT NULL DEFAULT '}',
      ADD COLUMN data_version bigint NOT NULL DEFAULT (random() * 9007199254740991)::bigint,
      ADD COLUMN sync_seq bigint NOT NULL DEFAULT 0, ADD COLUMN resync_from bigint NOT NULL DEFAULT 0;
    UPDATE tenants t SET empty_fragment = s.empty_fragment, data_version = s.data_version, resync_from = s.resync_from,
        sync_seq = coalesce((SELECT max(stamp) FROM stamp_times m WHERE m.tenant_id = t.id), 0)
      FROM tenant_state s WHERE s.tenant_id = t.id;
    ALTER TABLE tenants ADD COLUMN empty_fragment_v2 text GENERATED ALWAYS AS (${fragmentV2('empty_fragment')}) STORED;
    DROP TABLE tenant_state;
    UPDATE schema_version SET version = 9;
  `;


/**
 * SQL that takes a SQLite database of this build back to before the statements' v2 texts had
 * a table of their own (migration 13): the columns back in `reporting_records`, with their values.
 */
const BEFORE_V2_TEXT_TABLE = `${BEFORE_IMPORT_WARNINGS.sqlite}
    ALTER TABLE reporting_records ADD COLUMN body_v2 TEXT;
    ALTER TABLE reporting_records ADD COLUMN changed_at TEXT;
    UPDATE reporting_records SET (body_v2, changed_at) =
      (SELECT body, changed_at FROM reporting_records_v2 v WHERE v.tenant_id = reporting_records.tenant_id AND v.pos = reporting_records.pos);
    DROP TABLE reporting_records_v2;
    PRAGMA user_version = 12;
  `;

/**
 * SQL that takes a database of this build back to before imports of data tables (SQLite
 * migration 12, PostgreSQL migration 9), for tests of the migrations. The version is set back
 * too, so the next open migrates again.
 */
const BEFORE_IMPORTS: Record<TestEngine, string> = {
  sqlite: `${BEFORE_V2_TEXT_TABLE}
    DROP TABLE import_lines;
    DROP TABLE import_tables;
    DROP TABLE imports;
    ALTER TABLE data_tables DROP COLUMN resync_from;
    PRAGMA user_version = 11;
  `,
  postgres: `${BEFORE_TENANT_STATE}
    DROP TABLE import_lines;
    DROP TABLE import_tables;
    DROP TABLE imports;
    ALTER TABLE data_tables DROP COLUMN resync_from;
    UPDATE schema_version SET version = 8;
  `,
};

/**
 * SQL that takes a database of this build back to before idempotency keys (SQLite migration
 * 11, PostgreSQL migration 8), and so before imports too.
 */
const BEFORE_IDEMPOTENCY_KEYS: Record<TestEngine, string> = {
  sqlite: `${BEFORE_IMPORTS.sqlite}
    DROP TABLE idempotency_keys;
    PRAGMA user_version = 10;
  `,
  postgres: `${BEFORE_IMPORTS.postgres}
    DROP TABLE idempotency_keys;
    UPDATE schema_version SET version = 7;
  `,
};

/**
 * SQL that takes a database of this build back to before key scopes (SQLite migration 10,
 * PostgreSQL migration 7), and so before idempotency keys too.
 */
export const BEFORE_KEY_SCOPES: Record<TestEngine, string> = {
  sqlite: `${BEFORE_IDEMPOTENCY_KEYS.sqlite}
    ALTER TABLE api_keys DROP COLUMN scope;
    PRAGMA user_version = 9;
  `,
  postgres: `${BEFORE_IDEMPOTENCY_KEYS.postgres}
    ALTER TABLE api_keys DROP COLUMN scope;
    UPDATE schema_version SET version = 6;
  `,
};

/**
 * SQL that takes a database of this build back to before archived users (SQLite migration 9,
 * PostgreSQL migration 6), and so before key scopes too.
 */
const BEFORE_ARCHIVED_USERS: Record<TestEngine, string> = {
  sqlite: `${BEFORE_KEY_SCOPES.sqlite}
    ALTER TABLE users DROP COLUMN archived_after;
    PRAGMA user_version = 8;
  `,
  postgres: `${BEFORE_KEY_SCOPES.postgres}
    ALTER TABLE users DROP COLUMN archived_after;
    UPDATE schema_version SET version = 5;
  `,
};

/**
 * SQL that takes a database of this build back to before the v2 reads (SQLite migration 8,
 * PostgreSQL migration 5), and so before archived users too.
 */
export const BEFORE_V2: Record<TestEngine, string> = {
  sqlite: `${BEFORE_ARCHIVED_USERS.sqlite}
    DROP TABLE removed_records;
    DROP TABLE stamp_times;
    ALTER TABLE tenants DROP COLUMN empty_fragment_v2;
    CREATE TABLE dimension_values_v1 (
      user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
      month INTEGER NOT NULL,
      fragment TEXT NOT NULL,
      tenant_id INTEGER,
      stamp INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (user_pk, month)
    ) WITHOUT ROWID;
    INSERT INTO dimension_values_v1 SELECT user_pk, month, fragment, tenant_id, stamp FROM dimension_values;
    DROP TABLE dimension_values;
    ALTER TABLE dimension_values_v1 RENAME TO dimension_values;
    CREATE INDEX dimension_values_by_stamp ON dimension_values (tenant_id, stamp);
    ALTER TABLE reporting_records DROP COLUMN body_v2;
    ALTER TABLE table_records DROP COLUMN body_v2;
    ALTER TABLE reporting_records DROP COLUMN changed_at;
    ALTER TABLE table_records DROP COLUMN changed_at;
    PRAGMA user_version = 7;
  `,
  postgres: `${BEFORE_ARCHIVED_USERS.postgres}
    DROP TABLE removed_records, stamp_times;
    ALTER TABLE tenants DROP COLUMN empty_fragment_v2;
    ALTER TABLE dimension_values DROP COLUMN fragment_v2, DROP COLUMN changed_at;
    ALTER TABLE reporting_records DROP COLUMN body_v2, DROP COLUMN changed_at;
    ALTER TABLE table_records DROP COLUMN body_v2, DROP COLUMN changed_at;
    UPDATE schema_version SET version = 4;
  `,
};

/**
 * SQL that takes a database of this build back to before custom user attributes (SQLite
 * migration 7, PostgreSQL migration 4), and so before the v2 reads too, for tests of the
 * migrations. The version is set back too, so the next open migrates again.
 */
export const BEFORE_USER_ATTRIBUTES: Record<TestEngine, string> = {
  sqlite: `${BEFORE_V2.sqlite}
    ALTER TABLE users DROP COLUMN attributes;
    PRAGMA user_version = 6;
  `,
  postgres: `${BEFORE_V2.postgres}
    ALTER TABLE users DROP COLUMN attributes;
    UPDATE schema_version SET version = 3;
  `,
};

/**
 * SQL that takes a database of this build back to before the filters of the reporting records
 * (SQLite migration 6, PostgreSQL migration 3), and so before user attributes too.
 */
export const BEFORE_FILTERS: Record<TestEngine, string> = {
  sqlite: `${BEFORE_USER_ATTRIBUTES.sqlite}
    DROP INDEX reporting_records_by_user_position;
    DROP INDEX reporting_records_by_plan;
    DROP INDEX reporting_records_by_month;
    PRAGMA user_version = 5;
  `,
  postgres: `${BEFORE_USER_ATTRIBUTES.postgres}
    DROP INDEX reporting_records_by_user_position, reporting_records_by_plan, reporting_records_by_month;
    UPDATE schema_version SET version = 2;
  `,
};

/**
 * SQL that takes a database of this build back to before incremental sync (SQLite migration
 * 5, PostgreSQL migration 2), and so before the filters too: the schema an older build left,
 * for tests of the migrations. The version is set back too, so the next open migrates again.
 */
export const BEFORE_SYNC: Record<TestEngine, string> = {
  sqlite: `${BEFORE_FILTERS.sqlite}
    DROP INDEX reporting_records_by_stamp;
    DROP INDEX table_records_by_stamp;
    DROP INDEX dimension_values_by_stamp;
    DROP INDEX reporting_records_by_user_month;
    CREATE INDEX reporting_records_by_user ON reporting_records (user_pk);
    ALTER TABLE tenants DROP COLUMN sync_seq;
    ALTER TABLE tenants DROP COLUMN resync_from;
    ALTER TABLE reporting_records DROP COLUMN stamp;
    ALTER TABLE table_records DROP COLUMN stamp;
    ALTER TABLE dimension_values DROP COLUMN tenant_id;
    ALTER TABLE dimension_values DROP COLUMN stamp;
    PRAGMA user_version = 4;
  `,
  postgres: `${BEFORE_FILTERS.postgres}
    DROP INDEX reporting_records_by_stamp, table_records_by_stamp, dimension_values_by_stamp, reporting_records_by_user_month;
    CREATE INDEX reporting_records_by_user ON reporting_records (tenant_id, user_pk);
    ALTER TABLE tenants DROP COLUMN sync_seq, DROP COLUMN resync_from;
    ALTER TABLE reporting_records DROP COLUMN stamp;
    ALTER TABLE table_records DROP COLUMN stamp;
    ALTER TABLE dimension_values DROP COLUMN stamp;
    UPDATE schema_version SET version = 1;
  `,
};
