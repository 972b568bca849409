import type { TestEngine } from './testDatabases.js';

/**
 * A query of every stored statement reporting record's whole v1 body (without its dimension
 * fields and closing brace) beside its tenant, position and id, however the engine stores it:
 * on PostgreSQL a record keeps its parts around its user object, which its user-month row holds
 * (src/store/postgres/recordParts.ts). Use as a subquery: `SELECT body FROM (…) b WHERE …`.
 */
export const RECORD_BODIES: Record<TestEngine, string> = {
  sqlite: 'SELECT tenant_id, pos, id, body FROM reporting_records',
  postgres: `SELECT r.tenant_id, r.pos, r.id, r.head || d.user_json || r.tail AS body FROM reporting_records r
    JOIN dimension_values d ON d.tenant_id = r.tenant_id AND d.user_pk = r.user_pk AND d.month = r.month`,
};
