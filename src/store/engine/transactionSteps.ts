import type { Answer } from '../vocabulary/answer.js';
import type { LoadSteps } from './loadSteps.js';
import type { KeyScope, Tenant } from '../vocabulary/tenancy.js';
import type { KeptCreate, StoredRecipe } from '../vocabulary/adminShapes.js';
/** A key to store: its id, tenant, the hash of its secret, when and for what it was made. */
export interface NewKey {
  readonly id: string;
  readonly tenantId: number;
  readonly secretHash: Buffer;
  readonly createdAt: string;
  readonly scope: KeyScope;
}

/** The steps of a write transaction (a load, a new key). */
export interface WriteSteps {
  /** The tenant named `name`, created when missing. */
  ensureTenant(name: string): Answer<Tenant>;
  /** The tenant named `name`, if there is one (never created). */
  findTenant(name: string): Answer<Tenant | undefined>;
  /** Deletes the tenant itself: its API keys and every row of its data, each table by `tenant_id`. */
  deleteTenant(tenantId: number): Answer<void>;
  /** Holds the tenant's write lock until the transaction ends (nothing to do where the transaction holds the database's one write lock). */
  lockTenant(tenantId: number): Answer<void>;
  /** Whether the tenant holds users or data tables (keys alone do not count). */
  hasData(tenantId: number): Answer<boolean>;
  /** Deletes the tenant's data, keeping the tenant and its API keys. */
  deleteData(tenantId: number): Answer<void>;
  /** The tenant's data changes in this transaction: a new data version. */
  dataChanged(tenantId: number): Answer<void>;
  /**
   * The stamp of this transaction's changes of the tenant (the next of its change counter);
   * `replace`: tokens issued before it call for a new sync from the start.
   */
  nextStamp(tenantId: number, replace: boolean): Answer<number>;
  insertKey(key: NewKey): Answer<void>;
  /** Keeps how the tenant was made as a sandbox (its recipe), replacing any kept before. */
  saveRecipe(tenantId: number, recipe: StoredRecipe): Answer<void>;
  /** How the tenant was made as a sandbox, if it was. */
  recipe(tenantId: number): Answer<StoredRecipe | undefined>;
  /** Forgets the tenant's requests: its idempotency keys and its imports (pending or done), with their lines. */
  dropRequests(tenantId: number): Answer<void>;
  /** When the tenant was created, as stored (ISO 8601). */
  tenantCreatedAt(tenantId: number): Answer<string>;
  /**
   * How many sandboxes there are (tenants with a recipe), counted after waiting for every other
   * transaction that counts them to end: a cap checked with it holds however many create at once.
   */
  countSandboxes(): Answer<number>;
  /**
   * Keeps a create's answer for its retries, once the answers kept before `since` (milliseconds)
   * are forgotten; false, nothing kept, when its lookup is kept already.
   */
  keepCreate(tenantId: number, kept: KeptCreate, since: number): Answer<boolean>;
  /** The steps of loading data into the tenant. */
  loadSteps(tenantId: number): LoadSteps;
}
