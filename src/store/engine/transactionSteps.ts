import type { Answer } from '../vocabulary/answer.js';
import type { LoadSteps } from './loadSteps.js';
import type { KeyScope, Tenant } from '../vocabulary/tenancy.js';
import type { KeptCreate, RecipeToSave, SandboxExpiry, StoredRecipe } from '../vocabulary/adminShapes.js';
import type { LeaseClaim } from '../vocabulary/leases.js';
import type { StatusChangeSteps, WebhookSteps } from './webhookSteps.js';
import type { DeliverySteps } from './deliverySteps.js';
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
  saveRecipe(tenantId: number, recipe: RecipeToSave): Answer<void>;
  /** How the tenant was made as a sandbox, if it was. */
  recipe(tenantId: number): Answer<StoredRecipe | undefined>;
  /** The sandbox's time to live (without reading its recipe's dataset); `undefined` for a tenant not made as one. */
  expiry(tenantId: number): Answer<SandboxExpiry | undefined>;
  /** Sets the time to live of the sandbox; false, nothing changed, when the tenant was not made as one (no recipe). */
  setExpiry(tenantId: number, expiry: SandboxExpiry): Answer<boolean>;
  /** Takes or renews the lease of the claim (see {@link LeaseClaim}); whether the claimant holds it now. */
  takeLease(claim: LeaseClaim): Answer<boolean>;
  /** Gives the lease `name` up, if `owner` holds it. */
  releaseLease(name: string, owner: string): Answer<void>;
  /** Forgets the tenant's requests: its idempotency keys and its imports (pending or done), with their lines. */
  dropRequests(tenantId: number): Answer<void>;
  /**
   * Copies every row of the tenant `from`'s data into the tenant `to` (which holds none), as
   * stamp `stamp` of `to` (../sqlite/tenantCopy.ts, ../postgres/tenantCopy.ts).
   */
  copyData(from: number, to: number, stamp: number): Answer<void>;
  /** The version of the tenant's data (what a page's ETag carries), as text; `undefined` when there is no such tenant. */
  dataVersion(tenantId: number): Answer<string | undefined>;
  /** The tenants whose names are at least `from` and less than `before` (by code point). */
  tenantsNamedBetween(from: string, before: string): Answer<Tenant[]>;
  /** Whether a sandbox's recipe names the tenant `originId` as its created state. */
  originInUse(originId: number): Answer<boolean>;
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
  /** The steps of changing the statuses of the tenant's statements, with the calls they raise. */
  statusChangeSteps(tenantId: number): StatusChangeSteps;
  /** The tenant's webhook endpoints. */
  webhookSteps(tenantId: number): WebhookSteps;
  /** The outbox's calls as the delivery worker claims and settles them. */
  deliverySteps(): DeliverySteps;
}
