/**
 * Versioned schema. Each entry moves the database from version i to i + 1 (`PRAGMA
 * user_version`); entries are never edited once released, only appended.
 *
 * Invariants the read path relies on:
 * - `reporting_records.pos` and `table_records.pos` are dense per tenant / table (0..n-1):
 *   records are only appended at the end, updated in place, or deleted all together. So the
 *   raw `offset` of a paged read is the key to seek, and `max(pos) + 1` is the count.
 * - `reporting_records.body` is the record's JSON without its dimension fields and closing brace;
 *   `dimension_values.fragment` holds those for one user and month (",\"region\":[..]}"). Its
 *   user object stands at byte `user_at` for `user_len` bytes; when the record's `user_rev` is
 *   not its user-month row's and the row holds a `user_json`, that is the user's object instead
 *   (migration 28).
 *   Every (user_pk, month) of a reporting record has a `dimension_values` row.
 * - `tenants.data_version` changes in every transaction that changes the tenant's data (see
 *   writeSteps.ts, ../storeOver.ts); a read of it that precedes a read of the data is a version the data has
 *   or had since.
 * - Every month stored is a month the wire form can write, `0000-01`..`9999-12` (indexes
 *   0..119999; see domain/months.ts): the read-backs print them with `printf('%04d-%02d')`,
 *   which gives `0000-00` or `10000-01` past either end.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE tenants (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    -- dimension fields of a user with no group in any dimension, with the closing brace
    empty_fragment TEXT NOT NULL DEFAULT '}'
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    secret_hash BLOB NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  CREATE TABLE users (
    pk INTEGER PRIMARY KEY,
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    email TEXT NOT NULL,
    json TEXT NOT NULL,
    UNIQUE (tenant_id, id)
  );
  CREATE UNIQUE INDEX users_by_email ON users (tenant_id, email COLLATE NOCASE);
  CREATE TABLE metrics (
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, key)
  ) WITHOUT ROWID;
  CREATE TABLE dimensions (
    pk INTEGER PRIMARY KEY,
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    position INTEGER NOT NULL,
    UNIQUE (tenant_id, key)
  );
  CREATE TABLE groups (
    pk INTEGER PRIMARY KEY,
    dimension_pk INTEGER NOT NULL REFERENCES dimensions(pk) ON DELETE CASCADE,
    name TEXT NOT NULL,
    UNIQUE (dimension_pk, name)
  );
  CREATE TABLE group_attributions (
    pk INTEGER PRIMARY KEY,
    user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
    dimension_pk INTEGER NOT NULL REFERENCES dimensions(pk) ON DELETE CASCADE,
    group_pk INTEGER NOT NULL REFERENCES groups(pk) ON DELETE CASCADE,
    start_month INTEGER NOT NULL,
    end_month INTEGER,
    CHECK (end_month IS NULL OR end_month >= start_month)
  );
  CREATE INDEX group_attributions_by_user ON group_attributions (user_pk, dimension_pk, start_month);
  CREATE INDEX group_attributions_by_group ON group_attributions (group_pk);
  CREATE TABLE manager_attributions (
    pk INTEGER PRIMARY KEY,
    user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
    manager_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
    start_month INTEGER,
    end_month INTEGER,
    CHECK (start_month IS NULL OR end_month IS NULL OR end_month >= start_month)
  );
  CREATE INDEX manager_attributions_by_user ON manager_attributions (user_pk, start_month);
  CREATE INDEX manager_attributions_by_manager ON manager_attributions (manager_pk);
  CREATE TABLE reporting_records (
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    pos INTEGER NOT NULL,
    id TEXT NOT NULL,
    user_pk INTEGER NOT NULL REFERENCES users(pk),
    month INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, pos)
  ) WITHOUT ROWID;
  CREATE UNIQUE INDEX reporting_records_by_id ON reporting_records (tenant_id, id);
  CREATE TABLE dimension_values (
    user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
    month INTEGER NOT NULL,
    fragment TEXT NOT NULL,
    PRIMARY KEY (user_pk, month)
  ) WITHOUT ROWID;
  CREATE TABLE data_tables (
    pk INTEGER PRIMARY KEY,
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    name TEXT NOT NULL,
    fields TEXT NOT NULL,
    UNIQUE (tenant_id, key)
  );
  CREATE TABLE table_records (
    table_pk INTEGER NOT NULL REFERENCES data_tables(pk) ON DELETE CASCADE,
    pos INTEGER NOT NULL,
    id TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (table_pk, pos)
  ) WITHOUT ROWID;
  CREATE UNIQUE INDEX table_records_by_id ON table_records (table_pk, id);
  `,
  // 2: records by user. Deleting users (`import --replace`) checks the foreign key of their
  // records through it instead of scanning every record once per user, and the records of a
  // user whose object changed are found directly.
  `
  CREATE INDEX reporting_records_by_user ON reporting_records (user_pk);
  `,
  // 3: attributions holding no month of 0000-01..9999-12 (month indexes 0..119999) go. Before
  // issue 15 an override could leave "since always .. 0000-00" (end -1) or "10000-01 .. no end"
  // (start 120000), which read back outside the contract. Such a row holds no month a record
  // can have, so no dimension field changes.
  `
  DELETE FROM manager_attributions WHERE end_month < 0 OR start_month > 119999;
  DELETE FROM group_attributions WHERE end_month < 0 OR start_month > 119999;
  `,
  // 4: a version of each tenant's data, set to a new random value by every transaction that
  // writes the tenant's data (a bulk upsert, a load): paged reads carry it in their ETag.
  // Random rather than counted, so that a database file made again from scratch never gives a
  // tenant a version it had before with other data.
  `
  ALTER TABLE tenants ADD COLUMN data_version INTEGER NOT NULL DEFAULT 0;
  UPDATE tenants SET data_version = random();
  `,
  // 5: incremental sync (changeReads.ts). Each tenant counts its changes (`sync_seq`): a
  // transaction that changes records takes the next number, its stamp, and writes it on the
  // record rows whose content it changed and on the dimension fields it changed. A dimension
  // fields row made by a transaction holds minus its stamp until a later one changes it: every
  // record of that user and month was written by the same transaction, so the row's stamp says
  // nothing the records do not. `resync_from`: the stamp of the last `import --replace`; a
  // token from before it is answered "sync again from the start". The rows already stored get
  // stamp 1; dimension fields get 0 (what they hold shows with their records).
  `
  ALTER TABLE tenants ADD COLUMN sync_seq INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE tenants ADD COLUMN resync_from INTEGER NOT NULL DEFAULT 0;
  UPDATE tenants SET sync_seq = 1;
  ALTER TABLE reporting_records ADD COLUMN stamp INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE table_records ADD COLUMN stamp INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE dimension_values ADD COLUMN tenant_id INTEGER;
  ALTER TABLE dimension_values ADD COLUMN stamp INTEGER NOT NULL DEFAULT 0;
  UPDATE dimension_values SET tenant_id = (SELECT tenant_id FROM users WHERE users.pk = dimension_values.user_pk);
  CREATE INDEX reporting_records_by_stamp ON reporting_records (tenant_id, stamp, pos);
  CREATE INDEX table_records_by_stamp ON table_records (table_pk, stamp, pos);
  CREATE INDEX dimension_values_by_stamp ON dimension_values (tenant_id, stamp);
  DROP INDEX reporting_records_by_user;
  CREATE INDEX reporting_records_by_user_month ON reporting_records (user_pk, month);
  `,
  // 6: filters of the reporting records. A user's records in position order (the index holds
  // the primary key after the user; migration 5 had dropped the earlier one for an index
  // by user and month); a plan's records in position order, read by the same expression; the
  // records of each month, whose first and last positions bound a walk of a date range.
  // `IF NOT EXISTS`: the tests of earlier migrations set an older version on a newer schema.
  `
  CREATE INDEX IF NOT EXISTS reporting_records_by_user_position ON reporting_records (user_pk);
  CREATE INDEX IF NOT EXISTS reporting_records_by_plan ON reporting_records (tenant_id, json_extract(body || '}', '$.plan'));
  CREATE INDEX IF NOT EXISTS reporting_records_by_month ON reporting_records (tenant_id, month);
  `,
  // 7: custom user attributes (docs/rules.md#users): a JSON object of each user's attributes by
  // key, written by PUT /v1/users/bulk; not part of the user object inside the records.
  `
  ALTER TABLE users ADD COLUMN attributes TEXT NOT NULL DEFAULT '{}';
  `,
  // 8: the v2 reads (docs/rules.md#v2-reads).
  // - `body_v2`: a record's v2 text, rendered when it is written (domain/v2Json.ts), filled
  //   here from the v1 text (its JSON values copied as they are written there).
  // - `dimension_values.fragment_v2` and `tenants.empty_fragment_v2`: v1's dimension fields
  //   under `custom.` keys, without the closing brace, derived by the database: in v1's fragment
  //   (`,"region":["EMEA"],"segment":[]}`) a key starts the fragment or follows `],`, a text no
  //   JSON string holds unescaped. Stored (the table is made again: SQLite adds only virtual
  //   generated columns), so that a read only joins texts.
  // - `stamp_times`: the time of each stamp of the tenant's change counter (changeStamps.ts),
  //   written in the transaction that takes it: the clock's time in milliseconds, or the
  //   tenant's last time plus one millisecond, so that times increase with stamps. Stamps in
  //   use before this version all take the time of the upgrade.
  // - `changed_at` beside each `stamp` (records, table records, dimension fields): the time of
  //   that stamp, written by the statement that writes the stamp (changeStamps.ts `stampTime`),
  //   so that a v2 read takes a record's time (the later of its row's and its dimension
  //   fields') without a lookup per record. A dimension fields row holding minus a stamp (made
  //   with its records) has none.
  // - `removed_records`: where each record deleted by a replace stood (`structure`: '' for the
  //   statements, else the table's key), so that a walk given its id goes on after it.
  `
  ALTER TABLE reporting_records ADD COLUMN body_v2 TEXT;
  ALTER TABLE table_records ADD COLUMN body_v2 TEXT;
  ALTER TABLE reporting_records ADD COLUMN changed_at TEXT;
  ALTER TABLE table_records ADD COLUMN changed_at TEXT;
  CREATE TABLE stamp_times (
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    stamp INTEGER NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, stamp)
  ) WITHOUT ROWID;
  INSERT INTO stamp_times (tenant_id, stamp, at)
    SELECT tenant_id, stamp, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM (
      SELECT tenant_id, stamp FROM reporting_records
      UNION SELECT tenant_id, stamp FROM dimension_values WHERE stamp > 0
      UNION SELECT t.tenant_id, r.stamp FROM table_records r JOIN data_tables t ON t.pk = r.table_pk
      UNION SELECT id, sync_seq FROM tenants);
  UPDATE reporting_records SET changed_at = (SELECT at FROM stamp_times t WHERE t.tenant_id = reporting_records.tenant_id AND t.stamp = reporting_records.stamp);
  UPDATE table_records SET changed_at =
    (SELECT at FROM stamp_times t JOIN data_tables d ON d.tenant_id = t.tenant_id WHERE d.pk = table_records.table_pk AND t.stamp = table_records.stamp);
  UPDATE reporting_records SET body_v2 =
    '{"standard.id":' || ((body || '}') -> '$.id') || ',"standard.date":' || ((body || '}') -> '$.date')
    || ',"standard.plan":' || ((body || '}') -> '$.plan')
    || ',"standard.user":{"id":' || ((body || '}') -> '$.user.id') || ',"email":' || ((body || '}') -> '$.user.email') || '}'
    || ',"standard.payment":{"value":' || ((body || '}') -> '$.payment') || ',"currency":' || ((body || '}') -> '$.payment_currency') || '}'
    || ',"standard.target":{"value":' || ((body || '}') -> '$.target') || ',"currency":' || ((body || '}') -> '$.target_currency') || '}'
    || ',"standard.target_achievement":' || ((body || '}') -> '$.target_achievement')
    || ',"standard.on_target_earning":{"value":' || ((body || '}') -> '$.on_target_earning')
    || ',"currency":' || ((body || '}') -> '$.on_target_earning_currency') || '}'
    || ',"standard.achievement":{"value":' || ((body || '}') -> '$.achievement') || ',"currency":' || ((body || '}') -> '$.achievement_currency') || '}'
    || ifnull((SELECT group_concat(',"custom.' || m.key || '":{"value":' || ((body || '}') -> ('$.' || m.key))
                 || ',"currency":' || ((body || '}') -> ('$.' || m.key || '_currency')) || '}', '' ORDER BY m.position)
               FROM metrics m WHERE m.tenant_id = reporting_records.tenant_id), '');
  UPDATE table_records SET body_v2 =
    '{"datatable.id":' || ((body) -> '$.id')
    || ifnull((SELECT group_concat(',"datatable.' || (f.value ->> '$.key') || '":'
                 || CASE WHEN f.value ->> '$.type' = 'amount'
                      THEN '{"value":' || (body -> ('$.' || (f.value ->> '$.key'))) || ',"currency":' || (body -> ('$.' || (f.value ->> '$.key') || '_currency')) || '}'
                      ELSE body -> ('$.' || (f.value ->> '$.key')) END, '' ORDER BY f.id)
               FROM data_tables t, json_each(t.fields) f WHERE t.pk = table_records.table_pk), '');
  CREATE TABLE dimension_values_v2 (
    user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
    month INTEGER NOT NULL,
    fragment TEXT NOT NULL,
    tenant_id INTEGER,
    stamp INTEGER NOT NULL DEFAULT 0,
    fragment_v2 TEXT GENERATED ALWAYS AS (${fragmentV2('fragment')}) STORED,
    changed_at TEXT,
    PRIMARY KEY (user_pk, month)
  ) WITHOUT ROWID;
  INSERT INTO dimension_values_v2 (user_pk, month, fragment, tenant_id, stamp, changed_at)
    SELECT user_pk, month, fragment, tenant_id, stamp, (SELECT at FROM stamp_times t WHERE t.tenant_id = v.tenant_id AND t.stamp = v.stamp) FROM dimension_values v;
  DROP TABLE dimension_values;
  ALTER TABLE dimension_values_v2 RENAME TO dimension_values;
  CREATE INDEX dimension_values_by_stamp ON dimension_values (tenant_id, stamp);
  ALTER TABLE tenants ADD COLUMN empty_fragment_v2 TEXT GENERATED ALWAYS AS (${fragmentV2('empty_fragment')}) VIRTUAL;
  CREATE TABLE removed_records (
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    structure TEXT NOT NULL,
    id TEXT NOT NULL,
    pos INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, structure, id)
  ) WITHOUT ROWID;
  `,
  // 9: archived users (docs/rules.md#archived-users): the last month a user is active; NULL
  // while it is.
  `
  ALTER TABLE users ADD COLUMN archived_after INTEGER;
  `,
  // 10: key scopes (docs/rules.md#keys): a key may read and write (`write`, every key made
  // before), or only read.
  `
  ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'write' CHECK (scope IN ('read', 'write'));
  `,
  // 11: the Idempotency-Key of each write a tenant sent (docs/rules.md#retries), with the
  // fingerprint of its request and the JSON of what it wrote; `created_at` in milliseconds
  // since the epoch. Kept a day, forgotten by the tenant's next write with a key.
  `
  CREATE TABLE idempotency_keys (
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    written TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, key)
  ) WITHOUT ROWID;
  CREATE INDEX idempotency_keys_by_age ON idempotency_keys (tenant_id, created_at);
  `,
  // 12: imports of data tables (docs/rules.md#table-imports, ../imports/tableImports.ts): each import,
  // its tables, and the lines pushed until its table is imported (JSON array texts of up to
  // 1000 lines). `launch_at` and `heartbeat_at` in milliseconds since the epoch; `owner`: the
  // server that runs a started import. A data table's `resync_from`: the stamp of the last
  // import that replaced its records (`all=true`), before which its sync tokens call for a
  // new sync.
  `
  CREATE TABLE imports (
    pk INTEGER PRIMARY KEY,
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('scheduled', 'started', 'finished')),
    created_at TEXT NOT NULL,
    launch_at INTEGER NOT NULL,
    launched_at TEXT,
    finished_at TEXT,
    owner TEXT,
    heartbeat_at INTEGER,
    UNIQUE (tenant_id, id)
  );
  CREATE INDEX imports_unfinished ON imports (tenant_id, status) WHERE status <> 'finished';
  CREATE TABLE import_tables (
    import_pk INTEGER NOT NULL REFERENCES imports(pk) ON DELETE CASCADE,
    data_table_key TEXT NOT NULL,
    position INTEGER NOT NULL,
    replace_all INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('scheduled', 'finished')),
    records INTEGER,
    error TEXT,
    PRIMARY KEY (import_pk, data_table_key)
  ) WITHOUT ROWID;
  CREATE TABLE import_lines (
    import_pk INTEGER NOT NULL REFERENCES imports(pk) ON DELETE CASCADE,
    data_table_key TEXT NOT NULL,
    first_line INTEGER NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (import_pk, data_table_key, first_line)
  );
  ALTER TABLE data_tables ADD COLUMN resync_from INTEGER NOT NULL DEFAULT 0;
  `,
  // 13: the v2 texts of the statement reporting records in a table of their own
  // (`reporting_records_v2`, by the same key), with what a v2 page reads beside them: the
  // record's user and month (to join its dimension fields) and the time of its last change,
  // also stored as the field v2 writes (`time_field`, ready to join). A record's v1 and v2
  // texts in one row made it larger than a WITHOUT ROWID row keeps in its page (about 1000
  // bytes of 4096): every record spilled into an overflow page of its own, read by every
  // page of either version. Each half fits in the page again.
  `
  CREATE TABLE reporting_records_v2 (
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    pos INTEGER NOT NULL,
    user_pk INTEGER NOT NULL,
    month INTEGER NOT NULL,
    body TEXT NOT NULL,
    changed_at TEXT NOT NULL,
    time_field TEXT GENERATED ALWAYS AS (',"standard.last_modified_at":"' || changed_at || '"}') STORED,
    PRIMARY KEY (tenant_id, pos)
  ) WITHOUT ROWID;
  INSERT INTO reporting_records_v2 (tenant_id, pos, user_pk, month, body, changed_at)
    SELECT tenant_id, pos, user_pk, month, body_v2, changed_at FROM reporting_records
    WHERE body_v2 IS NOT NULL AND changed_at IS NOT NULL ORDER BY tenant_id, pos;
  ALTER TABLE reporting_records DROP COLUMN body_v2;
  ALTER TABLE reporting_records DROP COLUMN changed_at;
  `,
  // 14: imports that ignore the properties of pushed records that are not fields of the table
  // and import the lines that fit beside those that do not (docs/rules.md#table-imports):
  // `ignored_fields`, the JSON of the keys ignored and in how many lines; a table that failed
  // has no count of records. Before, a failed table stored 0 and every failure had an error:
  // those read as failed, with no count.
  `
  ALTER TABLE import_tables ADD COLUMN ignored_fields TEXT;
  UPDATE import_tables SET records = NULL WHERE error IS NOT NULL AND records = 0;
  `,
  // 15: a data table record's id keyed `standard.id` in its v2 text, as the hosted reference
  // keys a record's id (docs/rules.md#v2-reads); it was `datatable.id`, first in the text. Only
  // that key changes: the record's time of last change stays (its v1 record did not change).
  // Every tenant's data gets a new version, so that no v2 page of before is answered `304`.
  `
  UPDATE table_records SET body_v2 = '{"standard.id":' || substr(body_v2, 17) WHERE substr(body_v2, 1, 16) = '{"datatable.id":';
  UPDATE tenants SET data_version = random();
  `,
  // 16: statements (docs/rules.md#statements): the lines of one user in one month are a
  // statement, whose status and total commission are kept here, once, and joined to each line
  // by a v2 read. `total`: the sum of the lines' payments in millionths (an integer, exact; the
  // same on both engines), NULL with `currency_json` (the currency as a JSON string) NULL when
  // the lines are in more than one currency. `fields_v2`: the two v2 fields, ready to join. `changed_at`: the time of the
  // stamp that last changed the status or the total. Filled from the stored lines: a month
  // before the upgrade's is `validated`, the upgrade's month and later ones `draft`, dated as
  // the last change of its lines, so that the upgrade moves no record's time.
  `
  CREATE TABLE statements (
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_pk INTEGER NOT NULL,
    month INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('draft', 'validated', 'sent_to_payroll', 'paid')),
    total INTEGER,
    currency_json TEXT,
    changed_at TEXT NOT NULL,
    fields_v2 TEXT GENERATED ALWAYS AS (
      ',"standard.status":"' || status || '","standard.total_commission":{"value":'
      || CASE WHEN total IS NULL THEN 'null'
              ELSE (CASE WHEN total < 0 THEN '-' ELSE '' END) || (abs(total) / 1000000)
                   || rtrim('.' || substr('00000' || (abs(total) % 1000000), -6), '.0') END
      || ',"currency":' || ifnull(currency_json, 'null') || '}') STORED,
    PRIMARY KEY (tenant_id, user_pk, month)
  ) WITHOUT ROWID;
  INSERT INTO statements (tenant_id, user_pk, month, status, total, currency_json, changed_at)
    SELECT tenant_id, user_pk, month,
      CASE WHEN month < CAST(strftime('%Y', 'now') AS INTEGER) * 12 + CAST(strftime('%m', 'now') AS INTEGER) - 1 THEN 'validated' ELSE 'draft' END,
      CASE WHEN min(currency) IS max(currency) THEN sum(micros) END, CASE WHEN min(currency) IS max(currency) THEN min(currency) END,
      max(changed_at)
    FROM (SELECT r.tenant_id, r.user_pk, r.month, (r.body || '}') -> '$.payment_currency' AS currency,
            CAST(round(((r.body || '}') ->> '$.payment') * 1000000) AS INTEGER) AS micros, v.changed_at
          FROM reporting_records r JOIN reporting_records_v2 v ON v.tenant_id = r.tenant_id AND v.pos = r.pos) AS lines
    GROUP BY tenant_id, user_pk, month;
  `,
  // 17: how each sandbox of the administration API was made (docs/administration.md#reset): its
  // recipe (JSON: the seed parameters, or the template's name) and, for a copy, the gzipped
  // dataset it was created with, which a reset loads again. Deleted with the tenant.
  `
  CREATE TABLE sandbox_recipes (
    tenant_id INTEGER PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
    recipe TEXT NOT NULL,
    dataset BLOB
  );
  `,
  // 18: a tenant's id is never given again once its tenant is deleted (the administration API
  // deletes tenants). `tenants.id` is a rowid without AUTOINCREMENT, which SQLite gives as the
  // largest in the table plus one: deleting the newest tenant gave its id to the next one, and
  // what is keyed by the id (sync tokens, see domain/syncToken.ts) was then taken for the new
  // tenant's. PostgreSQL's identity never gives a value twice. `last_deleted_tenant`, one row:
  // the largest id a deleted tenant had, raised by the deletion (tenantDirectory.ts); a new
  // tenant takes the larger of it and the ids in use, plus one (writeSteps.ts). Rather than
  // making `tenants` again with AUTOINCREMENT: migrations run in one transaction with foreign
  // keys on, where dropping the table referenced by every other would delete all their rows
  // (ON DELETE CASCADE). Ids deleted before this version are not known; starting from the
  // largest in use, no id after it is given twice.
  `
  CREATE TABLE last_deleted_tenant (id INTEGER NOT NULL);
  INSERT INTO last_deleted_tenant (id) SELECT ifnull(max(id), 0) FROM tenants;
  `,
  // 19: a copied sandbox's created state kept in the database (docs/administration.md#reset):
  // the hidden tenant holding it, shared by the copies of one version of one template. NULL for a
  // sandbox generated from seed parameters and for a copy made before, which keeps its dataset.
  `
  ALTER TABLE sandbox_recipes ADD COLUMN origin_id INTEGER;
  CREATE INDEX sandbox_recipes_by_origin ON sandbox_recipes (origin_id) WHERE origin_id IS NOT NULL;
  `,
  // 20: a sandbox's time to live (docs/administration.md#time-to-live): `ttl_seconds`, the span
  // counted from its creation, its last reset or its last extension, and `expires_at` (ISO 8601,
  // UTC, as `created_at`), when the server removes it; both null: it never expires. `leases`: who
  // does the servers' background work of one kind for now (`owner`, until `expires_at`, in
  // milliseconds since the epoch), taken by compare-and-set (leases.ts); the sweeper's is
  // `sandbox-sweeper`.
  `
  ALTER TABLE sandbox_recipes ADD COLUMN ttl_seconds INTEGER;
  ALTER TABLE sandbox_recipes ADD COLUMN expires_at TEXT;
  CREATE INDEX sandbox_recipes_by_expiry ON sandbox_recipes (expires_at) WHERE expires_at IS NOT NULL;
  CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  );
  `,
  // 21: webhooks (docs/administration.md#webhook-endpoints): a tenant's endpoints with their
  // secrets (the `X-Webhook-Secret` value and the signing secret, each with the one it replaced
  // and when that one stops being valid), and the outbox of their calls: one row per call, written
  // in the transaction that changes the statement's status, keyed by its `webhook-id`, with what
  // the delivery worker needs (attempts, the time of the next, state, lease). A call refers to its
  // statement by its user's id and month; the body is rendered when it is sent.
  `
  CREATE TABLE webhook_endpoints (
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    secret_header INTEGER NOT NULL,
    secret TEXT NOT NULL,
    signing_secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_signing_secret TEXT,
    previous_until TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  ) WITHOUT ROWID;
  CREATE TABLE webhook_calls (
    tenant_id INTEGER NOT NULL,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    endpoint_id TEXT NOT NULL,
    event TEXT NOT NULL,
    user_id TEXT NOT NULL,
    month INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    lease_owner TEXT,
    lease_until TEXT,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id) ON DELETE CASCADE
  ) WITHOUT ROWID;
  CREATE UNIQUE INDEX webhook_calls_order ON webhook_calls (tenant_id, seq);
  CREATE INDEX webhook_calls_due ON webhook_calls (tenant_id, state, next_attempt_at);
  `,
  // 22: the answer of each sandbox create sent with an `Idempotency-Key` (docs/administration.md),
  // kept for its retries within the public API's window: `lookup`, a digest of the key (the
  // administration token's keys, not a tenant's); `fingerprint`, of the request; `answer`, sealed
  // with a key derived from the Idempotency-Key, which the database does not hold; `created_at`
  // in milliseconds. Deleted with the sandbox's tenant. Few rows: sandboxes are capped.
  `
  CREATE TABLE sandbox_requests (
    lookup TEXT PRIMARY KEY,
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    answer BLOB NOT NULL,
    created_at INTEGER NOT NULL
  );
  `,
  // 23: the log of webhook calls' attempts (docs/administration.md#delivery): one row per attempt
  // of a call, keyed by tenant, call and attempt number: when it was made, how long it took, the
  // receiver's status (or the error when none came), the head of its answer, and the body sent.
  // Deleted with its call (endpoint deleted, sandbox reset) and with its tenant. The index holds
  // the calls waiting for an attempt, which the delivery worker looks for across tenants.
  `
  CREATE TABLE webhook_attempts (
    tenant_id INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    at TEXT NOT NULL,
    duration_ms INTEGER NOT NULL,
    status INTEGER,
    error TEXT,
    answer_head TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, call_id, attempt),
    FOREIGN KEY (tenant_id, call_id) REFERENCES webhook_calls (tenant_id, id) ON DELETE CASCADE
  ) WITHOUT ROWID;
  CREATE INDEX webhook_calls_waiting ON webhook_calls (next_attempt_at) WHERE state = 'pending';
  `,
  // 24: fewer pages per bulk upsert (docs/rules.md#bulk-attributions): group attributions keep no
  // index by group and no foreign key to `groups`. The writes hold that reference: a row's group
  // is found or made by (dimension, name), and a group is deleted only with its dimension, whose
  // deletion deletes the dimension's attributions (`dimension_pk` keeps its foreign key).
  // `compdata check` verifies the reference (invariantReads.ts). The table is rebuilt, since
  // SQLite drops no foreign key of a table in place; its rows keep their `pk`.
  `
  CREATE TABLE group_attributions_24 (
    pk INTEGER PRIMARY KEY,
    user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
    dimension_pk INTEGER NOT NULL REFERENCES dimensions(pk) ON DELETE CASCADE,
    group_pk INTEGER NOT NULL,
    start_month INTEGER NOT NULL,
    end_month INTEGER,
    CHECK (end_month IS NULL OR end_month >= start_month)
  );
  INSERT INTO group_attributions_24 (pk, user_pk, dimension_pk, group_pk, start_month, end_month)
    SELECT pk, user_pk, dimension_pk, group_pk, start_month, end_month FROM group_attributions ORDER BY pk;
  DROP TABLE group_attributions;
  ALTER TABLE group_attributions_24 RENAME TO group_attributions;
  CREATE INDEX group_attributions_by_user ON group_attributions (user_pk, dimension_pk, start_month);
  `,
  // 25: a call sent again by hand (docs/administration.md#the-log-of-calls): `resent_at`, when it
  // last was, and `series_from`, the attempts made before its current series, which the retry
  // schedule counts from (the log's numbers go on).
  `
  ALTER TABLE webhook_calls ADD COLUMN series_from INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE webhook_calls ADD COLUMN resent_at TEXT;
  `,
  // 26: faults for receivers' tests (docs/administration.md#faults-for-receivers): an endpoint's
  // faults as JSON (`NULL`: none), and the faults that shaped an attempt (`NULL`: none).
  `
  ALTER TABLE webhook_endpoints ADD COLUMN faults TEXT;
  ALTER TABLE webhook_attempts ADD COLUMN fault TEXT;
  `,
  // 27: fewer pages per bulk upsert (docs/rules.md#bulk-attributions): group attributions are
  // one tree keyed by user, dimension and start month (no rowid, no index beside it). Two
  // periods of one user and dimension never share a month, so no two share a start. The rows
  // lose their `pk`: the writes find a row by its key, and the read-back's cursor carries the
  // key (paging/attributionListing.ts).
  `
  CREATE TABLE group_attributions_27 (
    user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
    dimension_pk INTEGER NOT NULL REFERENCES dimensions(pk) ON DELETE CASCADE,
    start_month INTEGER NOT NULL,
    group_pk INTEGER NOT NULL,
    end_month INTEGER,
    PRIMARY KEY (user_pk, dimension_pk, start_month),
    CHECK (end_month IS NULL OR end_month >= start_month)
  ) WITHOUT ROWID;
  INSERT INTO group_attributions_27 (user_pk, dimension_pk, start_month, group_pk, end_month)
    SELECT user_pk, dimension_pk, start_month, group_pk, end_month FROM group_attributions ORDER BY user_pk, dimension_pk, start_month;
  DROP TABLE group_attributions;
  ALTER TABLE group_attributions_27 RENAME TO group_attributions;
  `,
  // 28: a rename writes its user and the user's rows of `dimension_values`, not each of its
  // records (docs/rules.md#users).
  // - `reporting_records` keeps its whole v1 text (`body`) and says where the user object stands
  //   in it: `user_at`, the position of its first byte, and `user_len`, its length in bytes,
  //   both counted as `instr` and `substr` count in the text as a BLOB (`substr` of a text walks
  //   its characters), and `user_rev`, the revision of its user-month row's object it was
  //   written with.
  // - `dimension_values.user_rev` is the revision of the user's object, moved on by each change
  //   of the user; `user_json` the user's current object once the user changed (NULL before).
  // - A read gives the body of a record written with its row's revision (or whose user never
  //   changed), and otherwise the body with the row's object in place of the one at `user_at`
  //   (why not the object cut out of every record: bench/results/rename-sqlite-2026-11-28.md).
  // - The v2 texts keep the user's reference (`{"id":…,"email":…}`), which `PUT /v1/users/bulk`
  //   cannot change (the same file says what cutting them cost); a load that changes a user's
  //   e-mail rewrites them.
  // Rows are updated in place: their keys and order stay.
  `
  ALTER TABLE reporting_records ADD COLUMN user_at INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE reporting_records ADD COLUMN user_len INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE reporting_records ADD COLUMN user_rev INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE dimension_values ADD COLUMN user_rev INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE dimension_values ADD COLUMN user_json TEXT;
  UPDATE reporting_records SET user_at = instr(CAST(body AS BLOB), CAST('"user":' || u.json AS BLOB)) + 7, user_len = length(CAST(u.json AS BLOB))
    FROM users u WHERE u.pk = reporting_records.user_pk;
  `,
];

/** v1's dimension fields (`column`) as v2 writes them: under `custom.` keys, without the closing brace (see migration 8). */
function fragmentV2(column: string): string {
  return `CASE WHEN ${column} = '}' THEN '' ELSE ',"custom.' || substr(replace(substr(${column}, 1, length(${column}) - 1), '],"', '],"custom.'), 3) END`;
}
