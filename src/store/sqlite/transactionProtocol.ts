/** What the transaction thread is started with (see transactionThread.ts). */
export interface TransactionThreadData {
  path: string;
  busyTimeoutMs: number;
  /** Whether the thread's commits checkpoint the WAL (SQLite's default), or a checkpoint thread does. */
  checkpoints: boolean;
  /** For tests of a thread that dies: the thread exits at its first commit, before it. */
  exitAtFirstCommit?: boolean;
}

/** Steps reached through a step that returns steps (`loadSteps(tenantId)`): each such step, with its arguments. */
export type StepPath = readonly (readonly [name: string, args: readonly unknown[]])[];

/** A message of a transaction to the thread: its start, one of its steps, its end. */
export type TransactionMessage =
  | { id: number; op: 'begin'; /** `Date.now()` after which the transaction stops waiting for another writer's lock. */ deadline: number }
  | { id: number; op: 'step'; path: StepPath; name: string; args: readonly unknown[] }
  | { id: number; op: 'commit' | 'rollback' };

/** The thread's answer to a message: the step's value, or the error it failed with (its message and the database's code). */
export type TransactionReply = { id: number; value?: unknown; error?: undefined } | { id: number; error: { message: string; code: string | undefined } };

/**
 * `value` with every `Uint8Array` in it (in arrays and plain objects) a `Buffer` again: a
 * `Buffer` crosses between threads as a plain `Uint8Array`. What holds none is returned as it is.
 */
export function withBuffers(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (Array.isArray(value)) {
    const elements = value.map(withBuffers);
    return elements.some((element, i) => element !== value[i]) ? elements : value;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const fields = Object.entries(value).map(([key, field]) => [key, withBuffers(field)] as const);
    return fields.some(([key, field]) => field !== (value as Record<string, unknown>)[key]) ? Object.fromEntries(fields) : value;
  }
  return value;
}
