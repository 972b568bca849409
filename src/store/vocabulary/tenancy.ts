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
