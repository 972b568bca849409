import type { WriteSteps } from '../engine/transactionSteps.js';
import type { SandboxExpiry, StoredRecipe } from '../vocabulary/adminShapes.js';
import type { Db } from './db.js';

/** How a sandbox was made (migrations 17 and 19), and the requests a reset forgets, on one connection. */
export function sandboxRecipeSteps(db: Db): Pick<WriteSteps, 'saveRecipe' | 'recipe' | 'expiry' | 'setExpiry' | 'dropRequests'> {
  const save = db.prepare<[number, string, Buffer | null, number | null]>(
    `INSERT INTO sandbox_recipes (tenant_id, recipe, dataset, origin_id) VALUES (?, ?, ?, ?)
     ON CONFLICT (tenant_id) DO UPDATE SET recipe = excluded.recipe, dataset = excluded.dataset, origin_id = excluded.origin_id`,
  );
  const read = db.prepare<[number], StoredRecipe>(
    'SELECT recipe, dataset, origin_id AS origin, ttl_seconds AS ttlSeconds, expires_at AS expiresAt FROM sandbox_recipes WHERE tenant_id = ?',
  );
  const readExpiry = db.prepare<[number], SandboxExpiry>('SELECT ttl_seconds AS ttlSeconds, expires_at AS expiresAt FROM sandbox_recipes WHERE tenant_id = ?');
  const expire = db.prepare<[number | null, string | null, number]>('UPDATE sandbox_recipes SET ttl_seconds = ?, expires_at = ? WHERE tenant_id = ?');
  // An import's tables and lines go with it (their foreign keys cascade).
  const drops = ['DELETE FROM idempotency_keys WHERE tenant_id = ?', 'DELETE FROM imports WHERE tenant_id = ?'].map((sql) => db.prepare<[number]>(sql));
  return {
    saveRecipe: (tenantId, { recipe, dataset, origin }) => void save.run(tenantId, recipe, dataset, origin ?? null),
    recipe: (tenantId) => read.get(tenantId),
    expiry: (tenantId) => readExpiry.get(tenantId),
    setExpiry: (tenantId, { ttlSeconds, expiresAt }) => expire.run(ttlSeconds, expiresAt, tenantId).changes > 0,
    dropRequests(tenantId) {
      for (const drop of drops) drop.run(tenantId);
    },
  };
}
