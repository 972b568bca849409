import type { TestEngine } from './testDatabases.js';

/**
 * SQL that takes a database of this build back to before custom user attributes (SQLite
 * migration 7, PostgreSQL migration 4), for tests of the migrations. The version is set back
 * too, so the next open migrates again.
 */
export const BEFORE_USER_ATTRIBUTES: Record<TestEngine, string> = {
  sqlite: `
    ALTER TABLE users DROP COLUMN attributes;
    PRAGMA user_version = 6;
  `,
  postgres: `
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
