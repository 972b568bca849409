import type { Db } from './db.js';

export interface Tenant {
  id: number;
  name: string;
}

export function findTenant(db: Db, name: string): Tenant | undefined {
  return db.prepare('SELECT id, name FROM tenants WHERE name = ?').get(name) as Tenant | undefined;
}

/** The tenant named `name`, created when missing. */
export function ensureTenant(db: Db, name: string): Tenant {
  db.prepare('INSERT INTO tenants (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run(
    name,
    new Date().toISOString(),
  );
  return findTenant(db, name)!;
}
