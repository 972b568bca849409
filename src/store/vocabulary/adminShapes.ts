import type { StoredTable } from './readShapes.js';
import type { KeyScope } from './tenancy.js';
/**
 * A tenant's data section by section, for `export`, in the API's order: users by e-mail
 * address (without regard to case), attributions as the read-backs list them, records and
 * table records by position. Each section comes as chunks of JSON texts, so that memory stays
 * bounded whatever the tenant's size.
 */
export interface DatasetReads {
  metricKeys(): Promise<string[]>;
  dimensionKeys(): Promise<string[]>;
  users(): AsyncIterable<string[]>;
  groupAttributions(): AsyncIterable<string[]>;
  managerAttributions(): AsyncIterable<string[]>;
  reporting(): AsyncIterable<string[]>;
  /** Every statement's status, by its user's e-mail address and month. */
  statements(): AsyncIterable<string[]>;
  tables(): Promise<StoredTable[]>;
  tableRecords(key: string): AsyncIterable<string[]>;
}

/**
 * How a sandbox was made (docs/administration.md#reset), kept with it so that a reset can put it
 * back: `recipe`, a JSON text (the seed parameters, or the template's name), and `dataset`, the
 * gzipped dataset the tenant was created with when it was a copy (`null`: generated again from
 * the seed parameters, or a copy too large to keep). With its time to live
 * (docs/administration.md#time-to-live).
 */
/** How a sandbox was made, as a load or a copy saves it; its time to live is set apart (`WriteSteps.setExpiry`). */
export type RecipeToSave = Pick<StoredRecipe, 'recipe' | 'dataset' | 'origin'>;

export interface StoredRecipe extends SandboxExpiry {
  readonly recipe: string;
  readonly dataset: Buffer | null;
  /** The hidden tenant that holds a copy's created state (docs/administration.md#reset), when it has one. */
  readonly origin?: number | null;
}

/**
 * A sandbox's time to live: `ttlSeconds`, counted from its creation, its last reset or its last
 * extension, and `expiresAt` (ISO 8601, UTC), when the server removes it; both `null`: never.
 */
export interface SandboxExpiry {
  readonly ttlSeconds: number | null;
  readonly expiresAt: string | null;
}

export interface LoadOptions {
  /** Kept with the tenant once the load's work is done, in its transaction: how it was made. */
  recipe?: () => Promise<RecipeToSave>;
  /** Delete the tenant's data first (its API keys stay). */
  replace?: boolean;
  /** Refuse a tenant that already has users or data tables (seeding never mixes two datasets). */
  mustBeEmpty?: boolean;
  /** The tenant is a sandbox of the administration API: its key, and the answer kept for a retry, made in the load's transaction. */
  sandbox?: SandboxMaking;
}

/**
 * What makes a loaded tenant a sandbox, in the load's transaction (docs/administration.md): a
 * cap on how many sandboxes there are (checked last, `TooManySandboxes`), a key of `scope`, its
 * time to live, and,
 * from `made`, the answer kept for a retry of the create (`undefined`: none kept).
 */
export interface SandboxMaking {
  readonly maxSandboxes: number;
  readonly scope: KeyScope;
  /** Its time to live, counted from its creation as stored (`null`: it never expires). */
  readonly ttlSeconds: number | null;
  made(made: MadeSandbox): KeptCreate | undefined;
}

/** A sandbox just made: its key (the secret shown once), its tenant's creation time as stored, and when it expires (`null`: never). */
interface MadeSandbox {
  readonly key: { readonly id: string; readonly key: string };
  readonly createdAt: string;
  readonly expiresAt: string | null;
}

/**
 * A create's answer kept for a retry with the same `Idempotency-Key`: found by `lookup` (a digest
 * of the key), told apart from another request by `fingerprint`, `answer` as the caller sealed it,
 * `at` in milliseconds. Deleted with its tenant, or once older than the retry window.
 */
export interface KeptCreate {
  readonly lookup: string;
  readonly fingerprint: string;
  readonly answer: Buffer;
  readonly at: number;
}

/** A kind of violation `check` reports (its line starts with it). */
export type ViolationKind =
  | 'integrity'
  | 'foreign-keys'
  | 'group-overlap'
  | 'manager-overlap'
  | 'manager-cycle'
  | 'archived-manager'
  | 'dimension-fields'
  | 'user-objects'
  | 'positions'
  | 'v2-records'
  | 'statements';

/** One kind of violation, with the first example found (a sentence naming tenant, user, month). */
export interface Violation {
  readonly kind: ViolationKind;
  readonly example: string;
}
