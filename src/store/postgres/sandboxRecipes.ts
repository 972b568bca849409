import type { WriteSteps } from '../engine/transactionSteps.js';
import type { SandboxExpiry, StoredRecipe } from '../vocabulary/adminShapes.js';
import { firstRow, run, statement, type Queryable } from './connection.js';

const save = statement<[number, string, Buffer | null, number | null]>(
  `INSERT INTO sandbox_recipes (tenant_id, recipe, dataset, origin_id) VALUES ($1, $2, $3, $4)
   ON CONFLICT (tenant_id) DO UPDATE SET recipe = excluded.recipe, dataset = excluded.dataset, origin_id = excluded.origin_id`,
);
const read = statement<[number], StoredRecipe>(
  'SELECT recipe, dataset, origin_id AS origin, ttl_seconds AS "ttlSeconds", expires_at AS "expiresAt" FROM sandbox_recipes WHERE tenant_id = $1',
);
const readExpiry = statement<[number], SandboxExpiry>('SELECT ttl_seconds AS "ttlSeconds", expires_at AS "expiresAt" FROM sandbox_recipes WHERE tenant_id = $1');
const expire = statement<[number | null, string | null, number]>('UPDATE sandbox_recipes SET ttl_seconds = $1, expires_at = $2 WHERE tenant_id = $3');
// Children first; each statement names the tenant, so that on Citus it goes to the tenant's node alone.
const drops = ['import_lines', 'import_tables', 'imports', 'idempotency_keys'].map((table) => statement<[number]>(`DELETE FROM ${table} WHERE tenant_id = $1`));

/** How a sandbox was made (migrations 21 and 22), and the requests a reset forgets, inside the caller's transaction. */
export function sandboxRecipeSteps(db: Queryable): Pick<WriteSteps, 'saveRecipe' | 'recipe' | 'expiry' | 'setExpiry' | 'dropRequests'> {
  return {
    saveRecipe: async (tenantId, { recipe, dataset, origin }) => void (await run(db, save, tenantId, recipe, dataset, origin ?? null)),
    recipe: (tenantId) => firstRow(db, read, tenantId),
    expiry: (tenantId) => firstRow(db, readExpiry, tenantId),
    setExpiry: async (tenantId, { ttlSeconds, expiresAt }) => (await run(db, expire, ttlSeconds, expiresAt, tenantId)) > 0,
    async dropRequests(tenantId) {
      for (const drop of drops) await run(db, drop, tenantId);
    },
  };
}
