/** `backup` on an engine whose databases are copied with its own tools: the message says which. */
export class BackupUnsupported extends Error {}

/** `compact` on an engine that reuses free space by itself: the message says what to run instead. */
export class CompactUnsupported extends Error {}

/** The tenant of `loadTenant` with `mustBeEmpty` already holds data. */
export class TenantNotEmpty extends Error {}

/** A sandbox would pass the cap on their number (`SandboxMaking.maxSandboxes`): nothing is written. */
export class TooManySandboxes extends Error {}

/** Another create kept its answer under the same `Idempotency-Key` meanwhile: nothing is written. */
export class CreateKeyTaken extends Error {}

/** The tenant named does not exist (and the operation does not create it). */
export class UnknownTenant extends Error {}

/** A read found the key of its provisional principal gone (revoked, deleted, the secret wrong): answered as a missing key (docs/rules.md#keys). */
export class KeyGone extends Error {}

/**
 * The database was written by a newer build of compdata (its schema version is past the last
 * migration this build knows): serving it could misread or damage data, so it is refused.
 */
export class SchemaTooNew extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(`its schema is version ${found}, newer than this build's ${known}: use the compdata that wrote it, or a later one`);
  }
}

/**
 * The store cannot do the work now, through no fault of the request: another writer held the
 * database past the busy timeout, the writer stopped, the database cannot be reached. The
 * client is told to try again (503 with Retry-After); nothing was written.
 */
export class StoreUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The write lock was held by another writer (an import, another server) past the busy timeout. */
export class StoreBusy extends StoreUnavailable {}

/**
 * The database has no room for the write: the disk (or file system) that holds it is full.
 * The write's transaction was rolled back, so nothing of it was written; reads go on. Writes
 * succeed again once space is freed: the client is told so (507), and is not told when.
 */
export class StoreFull extends Error {
  constructor(options?: ErrorOptions) {
    super('The disk that holds the database is full: nothing was written. Reads go on; writes succeed again once space is freed.', options);
  }
}

/** The database named by `--db` cannot be opened: the message says which and why. */
export class StoreOpenError extends Error {}

/**
 * The database named by `--db` cannot be opened because the disk that holds it is full; `why`
 * says what the engine could not write.
 */
export class StoreOpenFull extends StoreOpenError {
  constructor(database: string, why: string, options?: ErrorOptions) {
    super(`cannot open database ${database}: the disk that holds it is full (${why}); free space, then try again`, options);
  }
}

/** The database server named by `--db` does not answer (a `StoreOpenError` the CLI reports with exit code 2). */
export class StoreUnreachable extends StoreOpenError {}

/**
 * The database named by `--db` is there but cannot be served by this build: a file that is not
 * a database, a file or directory that cannot be written, a schema newer than this build's
 * (a `StoreOpenError` the CLI reports with exit code 2: the command line names it).
 */
export class StoreUnusable extends StoreOpenError {}

/**
 * The database named by `--db` does not exist (and the caller did not ask to create it): only
 * the commands that load data (`seed`, `import`) create one, so that a typo in `--db` is never
 * served or given keys as an empty database.
 */
export class StoreMissing extends StoreOpenError {
  constructor(readonly path: string) {
    super(`no database at ${path}`);
  }
}

/** How long a write waits for another writer (another process's, or the tenant's on PostgreSQL) before it is refused, unless told. */
export const DEFAULT_WRITE_WAIT_MS = 5000;
