/**
 * What another layout of the group attributions would save a bulk upsert: over a fresh copy of
 * the bulk store (1,000,000 attributions by default), with bulkCost.ts's request bodies, only
 * the group-attribution part of each 200-item upsert (read the stored periods a body's group
 * items touch, plan the override with the domain's `slotWrites`, write the plan), each body in
 * one IMMEDIATE transaction, COMMIT included. Dimension fields, managers, users and group names
 * are not measured: the bodies' users, dimensions and group keys are looked up before timing.
 * Four layouts, built side by side in the copy from `group_attributions` before timing, and
 * timed in alternating rounds over the same bodies:
 *
 * - A: `group_attributions` as the store has it (since SQLite migration 27, B2's layout), with
 *   the store's own statements (sqlite/bulkSteps.ts);
 * - B1: the same rows in a WITHOUT ROWID table keyed (user, dimension, start month), with the
 *   index by group that the cascade from `groups` needs; B2: the same without that index;
 * - C: one row per user and dimension (WITHOUT ROWID) holding its periods as JSON text
 *   `[[start, end, group], ...]`, read whole, replanned and written back whole.
 *
 * Prints CPU milliseconds per body (user + system of this process) and WAL frames (database
 * pages) written per body, medians of rounds, and each layout's ratio to A; then checks that
 * every user and dimension the bodies touched ends with the same periods in all four layouts
 * (and every layout holds as many periods), failing loudly otherwise.
 *
 *   node --import tsx bench/attributionLayout.ts [BODIES_PER_ROUND] [ROUNDS] [--spread]
 *
 * `--spread` moves the bodies' group items to other users (`spreadBody` in bulkStore.ts), as
 * bulkCost.ts's `--spread` does.
 */
import { loadavg } from 'node:os';
import { bulkBodies, spreadBody } from './bulkStore.js';
import { benchConfig } from './config.js';
import { alternated, median } from './stats.js';
import { prepareBulkRunStore } from './stores.js';
import { upsertsFromBody } from '../src/http/bulkItems.js';
import { groupItems, groupSlot, namesOf, resolveItems, slotWrites, type NewRow, type SlotRow } from '../src/domain/bulkPlan.js';
import type { Columns } from '../src/store/engine/commonWriteSteps.js';
import { parseKey } from '../src/store/apiKeys.js';
import { bulkSteps } from '../src/store/sqlite/bulkSteps.js';
import { openDatabase } from '../src/store/sqlite/db.js';
import { keySteps } from '../src/store/sqlite/keys.js';
import { writerCache } from '../src/store/sqlite/writerCache.js';

/** One period of a user and dimension as the check compares it: start, end, group. */
type StoredPeriod = [number, number | null, number];

interface Layout {
  readonly name: string;
  /** Carries out the group items of one body (their rows of the new attributions). */
  write(incoming: readonly NewRow<Columns>[]): Promise<void>;
  /** The periods of a user and dimension, by start month. */
  periods(userPk: number, dimensionPk: number): StoredPeriod[];
  /** How many periods the layout holds in all. */
  count(): number;
}

const [perRoundText = '100', roundsText = '3'] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const spread = process.argv.includes('--spread');
const perRound = Number(perRoundText);
const rounds = Number(roundsText);
const config = benchConfig();
const loadBefore = loadavg();
const store = await prepareBulkRunStore(config, 'layout');
const db = openDatabase(store.dbPath, { role: 'writer' });
db.pragma('wal_autocheckpoint = 0'); // as bulkCost.ts: the server's writer leaves checkpoints to their own thread
const tenantId = keySteps(db).lookup(parseKey(store.key)!.id)!.tenantId;
const steps = bulkSteps(db, writerCache(db))(tenantId);

const buildStarted = performance.now();
db.exec(layoutTables());
console.log(`built layouts B1, B2 and C from ${store.attributions} attributions in ${((performance.now() - buildStarted) / 1000).toFixed(1)} s`);
const bodies: NewRow<Columns>[][] = [];
for (const [index, drawn] of bulkBodies(perRound * rounds, config.bulkItems, store.users).entries()) {
  bodies.push(await groupRowsOf(spread ? spreadBody(drawn, index, store.users) : drawn));
}
db.pragma('wal_checkpoint(TRUNCATE)');

const layouts = [todaysLayout(), keyedLayout('attribution_layout_b1'), keyedLayout('attribution_layout_b2'), periodListLayout()];
const cpu = new Map<string, number[]>(layouts.map((layout) => [layout.name, []]));
const frames = new Map<string, number[]>(layouts.map((layout) => [layout.name, []]));
for (let round = 0; round < rounds; round += 1) {
  for (const layout of alternated(layouts, round)) {
    const started = process.cpuUsage();
    for (const incoming of bodies.slice(round * perRound, (round + 1) * perRound)) await inTransaction(() => layout.write(incoming));
    const used = process.cpuUsage(started);
    cpu.get(layout.name)!.push((used.user + used.system) / 1000 / perRound);
    const [written] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
    frames.get(layout.name)!.push(written!.log / perRound);
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
}
const mismatches = differences(layouts, bodies);
const loadAfter = loadavg();
db.close();

const groupItemsPerBody = median(bodies.map((incoming) => incoming.length));
const cpuOfA = median(cpu.get('A')!);
const framesOfA = median(frames.get('A')!);
console.log(
  `group-attribution part of a bulk upsert of ${config.bulkItems} items (${groupItemsPerBody} group items) over ${store.attributions} attributions, ` +
    `medians of ${rounds} rounds of ${perRound} bodies${spread ? ' (spread)' : ''}; load average ${loadBefore.map((n) => n.toFixed(2)).join(' ')} before, ` +
    `${loadAfter.map((n) => n.toFixed(2)).join(' ')} after`,
);
console.log('| layout | CPU ms per body | rounds | WAL frames per body | CPU / A | frames / A |');
console.log('|---|---:|---|---:|---:|---:|');
for (const { name } of layouts) {
  const [ms, pages] = [median(cpu.get(name)!), median(frames.get(name)!)];
  const roundsCpu = cpu.get(name)!.map((value) => value.toFixed(2)).join(', ');
  console.log(`| ${name} | ${ms.toFixed(2)} | ${roundsCpu} | ${pages.toFixed(0)} | ${(ms / cpuOfA).toFixed(2)} | ${(pages / framesOfA).toFixed(2)} |`);
}
if (mismatches.length > 0) {
  console.error(mismatches.slice(0, 10).join('\n'));
  throw new Error(`the layouts do not end with the same periods (${mismatches.length} differences)`);
}
console.log(`check: the ${new Set(bodies.flat().map((row) => row.slot)).size} users and dimensions the bodies touched end with the same periods in every layout`);

/** The new attribution rows of a body's group items (its manager items left out), as the store builds them. */
async function groupRowsOf(body: string): Promise<NewRow<Columns>[]> {
  const parsed = upsertsFromBody((JSON.parse(body) as { data: Parameters<typeof upsertsFromBody>[0] }).data);
  if ('problems' in parsed) throw new Error('a bench body has items that end before they start');
  const { emails } = namesOf(parsed.upserts);
  const resolved = resolveItems(parsed.upserts, await steps.users(emails), await steps.dimensions());
  if (!Array.isArray(resolved)) throw new Error('a bench body names an unknown user or dimension');
  const items = groupItems(resolved);
  const groupPks = await steps.groupPks(items.map((item) => [item.dimensionPk, item.group] as const));
  return items.map((item, i) => ({
    slot: groupSlot(item.userRow.pk, item.dimensionPk),
    payload: [item.userRow.pk, item.dimensionPk, groupPks[i]!],
    start: item.start,
    end: item.end,
  }));
}

async function inTransaction(write: () => Promise<void>): Promise<void> {
  db.exec('BEGIN IMMEDIATE');
  try {
    await write();
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/** The alternative tables, filled from `group_attributions` (all tenants). */
function layoutTables(): string {
  const keyed = (table: string) => `
    CREATE TABLE ${table} (
      user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
      dimension_pk INTEGER NOT NULL REFERENCES dimensions(pk) ON DELETE CASCADE,
      group_pk INTEGER NOT NULL REFERENCES groups(pk) ON DELETE CASCADE,
      start_month INTEGER NOT NULL,
      end_month INTEGER,
      CHECK (end_month IS NULL OR end_month >= start_month),
      PRIMARY KEY (user_pk, dimension_pk, start_month)
    ) WITHOUT ROWID;
    INSERT INTO ${table} SELECT user_pk, dimension_pk, group_pk, start_month, end_month FROM group_attributions
      ORDER BY user_pk, dimension_pk, start_month;`;
  return `${keyed('attribution_layout_b1')}
    CREATE INDEX attribution_layout_b1_by_group ON attribution_layout_b1 (group_pk);
    ${keyed('attribution_layout_b2')}
    CREATE TABLE attribution_layout_c (
      user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
      dimension_pk INTEGER NOT NULL REFERENCES dimensions(pk) ON DELETE CASCADE,
      periods TEXT NOT NULL,
      PRIMARY KEY (user_pk, dimension_pk)
    ) WITHOUT ROWID;
    INSERT INTO attribution_layout_c
      SELECT user_pk, dimension_pk, json_group_array(json_array(start_month, end_month, group_pk)) FROM (
        SELECT * FROM group_attributions ORDER BY user_pk, dimension_pk, start_month
      ) GROUP BY user_pk, dimension_pk;`;
}

/** A: the store's own steps on `group_attributions`. */
function todaysLayout(): Layout {
  return {
    name: 'A',
    async write(incoming) {
      const wanted = incoming.map((row) => ({ userPk: row.payload[0]!, dimensionPk: row.payload[1]!, period: row }));
      await steps.writeGroups(slotWrites(await steps.storedGroups(wanted), incoming));
    },
    ...periodRows('group_attributions'),
  };
}

/** B: one row per period in a WITHOUT ROWID table `table`, found by (user, dimension, start month). */
function keyedLayout(table: string): Layout {
  type RowKey = [number, number, number];
  const overlapping = db.prepare<[number, number, number, number], { start: number; end: number | null; groupPk: number }>(
    `SELECT start_month AS start, end_month AS "end", group_pk AS groupPk FROM ${table}
     WHERE user_pk = ? AND dimension_pk = ? AND start_month <= ? AND (end_month IS NULL OR end_month >= ?)`,
  );
  const remove = db.prepare<RowKey>(`DELETE FROM ${table} WHERE user_pk = ? AND dimension_pk = ? AND start_month = ?`);
  const update = db.prepare<[number | null, number | null, ...RowKey]>(
    `UPDATE ${table} SET start_month = ?, end_month = ? WHERE user_pk = ? AND dimension_pk = ? AND start_month = ?`,
  );
  const insert = db.prepare<(number | null)[]>(`INSERT INTO ${table} (user_pk, dimension_pk, group_pk, start_month, end_month) VALUES (?, ?, ?, ?, ?)`);
  usesPrimaryKey(overlapping.source, [1, 1, 1, 1]);
  return {
    name: table.endsWith('b1') ? 'B1' : 'B2',
    async write(incoming) {
      const stored = new Map<string, SlotRow<Columns, RowKey>>();
      for (const { slot, payload, start, end } of incoming) {
        const [user, dimension] = payload as [number, number];
        for (const row of overlapping.all(user, dimension, end ?? Number.MAX_SAFE_INTEGER, start ?? Number.MIN_SAFE_INTEGER)) {
          const key: RowKey = [user, dimension, row.start];
          stored.set(key.join(':'), { key, slot, payload: [user, dimension, row.groupPk], start: row.start, end: row.end });
        }
      }
      const writes = slotWrites([...stored.values()], incoming);
      for (const key of writes.deletes) remove.run(...key);
      for (const { key, period } of writes.updates) update.run(period.start, period.end, ...key);
      for (const row of writes.inserts) insert.run(...row.payload, row.start, row.end);
      return Promise.resolve();
    },
    ...periodRows(table),
  };
}

/** C: one row per user and dimension holding its periods as JSON, replanned and written back whole. */
function periodListLayout(): Layout {
  const read = db.prepare<[number, number], string>('SELECT periods FROM attribution_layout_c WHERE user_pk = ? AND dimension_pk = ?').pluck();
  const save = db.prepare<[number, number, string]>(
    `INSERT INTO attribution_layout_c (user_pk, dimension_pk, periods) VALUES (?, ?, ?)
     ON CONFLICT (user_pk, dimension_pk) DO UPDATE SET periods = excluded.periods`,
  );
  const remove = db.prepare<[number, number]>('DELETE FROM attribution_layout_c WHERE user_pk = ? AND dimension_pk = ?');
  const periods = (userPk: number, dimensionPk: number) => JSON.parse(read.get(userPk, dimensionPk) ?? '[]') as StoredPeriod[];
  usesPrimaryKey(read.source, [1, 1]);
  return {
    name: 'C',
    async write(incoming) {
      // A stored period is its own key: the plan's deletes and updates name the very array.
      const slots = new Map<string, { user: number; dimension: number; periods: StoredPeriod[] }>();
      const stored: SlotRow<Columns, StoredPeriod>[] = [];
      for (const { slot, payload } of incoming) {
        const [user, dimension] = payload as [number, number];
        if (slots.has(slot)) continue;
        const list = periods(user, dimension);
        slots.set(slot, { user, dimension, periods: list });
        for (const period of list) stored.push({ key: period, slot, payload: [user, dimension, period[2]], start: period[0], end: period[1] });
      }
      const writes = slotWrites(stored, incoming);
      const deleted = new Set(writes.deletes);
      for (const { key, period } of writes.updates) [key[0], key[1]] = [period.start!, period.end];
      for (const row of writes.inserts) slots.get(row.slot)!.periods.push([row.start!, row.end, row.payload[2]!]);
      for (const { user, dimension, periods: list } of slots.values()) {
        const kept = list.filter((period) => !deleted.has(period)).sort((a, b) => a[0] - b[0]);
        if (kept.length === 0) remove.run(user, dimension);
        else save.run(user, dimension, JSON.stringify(kept));
      }
      return Promise.resolve();
    },
    periods,
    count: () => db.prepare<[], number>('SELECT sum(json_array_length(periods)) FROM attribution_layout_c').pluck().get()!,
  };
}

/** A layout's reads for the check, over a table of one row per period. */
function periodRows(table: string): Pick<Layout, 'periods' | 'count'> {
  const rows = db.prepare<[number, number], StoredPeriod>(
    `SELECT start_month, end_month, group_pk FROM ${table} WHERE user_pk = ? AND dimension_pk = ? ORDER BY start_month`,
  );
  return {
    periods: (userPk, dimensionPk) => rows.raw().all(userPk, dimensionPk),
    count: () => db.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck().get()!,
  };
}

/** Fails unless SQLite finds the rows of `sql` (run with `params`) through the table's primary key. */
function usesPrimaryKey(sql: string, params: number[]): void {
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
  if (!plan.every((step) => step.detail.includes('PRIMARY KEY'))) throw new Error(`not by primary key: ${plan.map((step) => step.detail).join('; ')}`);
}

/** Every user and dimension the bodies touched whose periods differ between A and another layout, and every count that differs. */
function differences(all: readonly Layout[], written: readonly NewRow<Columns>[][]): string[] {
  const [today, ...others] = all;
  const found: string[] = [];
  const slots = new Map(written.flat().map((row) => [row.slot, row.payload]));
  for (const [slot, [user, dimension]] of slots) {
    const want = JSON.stringify(today!.periods(user!, dimension!));
    for (const layout of others) {
      const got = JSON.stringify(layout.periods(user!, dimension!));
      if (got !== want) found.push(`${slot}: A ${want}, ${layout.name} ${got}`);
    }
  }
  const wantCount = today!.count();
  for (const layout of others) if (layout.count() !== wantCount) found.push(`${layout.name} holds ${layout.count()} periods, A ${wantCount}`);
  return found;
}

