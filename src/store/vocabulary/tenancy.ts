/** What a request's key grants: its tenant, and whether it may write. Engines may carry more (what their reads need). */
export interface Principal {
  readonly tenantId: number;
  readonly scope: KeyScope;
}

/** What a key may do (docs/rules.md#keys): `read` only reads; `write` reads and writes. */
export type KeyScope = 'read' | 'write';

export interface Tenant {
  readonly id: number;
  readonly name: string;
}

export interface KeyInfo {
  id: string;
  tenant: string;
  created_at: string;
  state: 'active' | 'revoked';
  scope: KeyScope;
}

/** A tenant as administration lists it: when it was made and how much it holds (counted cheaply). */
export interface TenantSummary {
  readonly name: string;
  /** When the tenant was made (ISO 8601, UTC), as stored with it. */
  readonly createdAt: string;
  readonly users: number;
  /** Its statement reporting records. */
  readonly reportingRecords: number;
  /** The records of all its data tables. */
  readonly tableRecords: number;
  /** When the server removes it (a sandbox with a time to live; ISO 8601, UTC), or `null`: never. */
  readonly expiresAt: string | null;
}
