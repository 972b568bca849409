/** An answer that may come at once (SQLite reads on the calling thread) or later (over the network). */
export type Answer<T> = T | Promise<T>;

/**
 * `next` applied to `answer`: at once when it came at once, so that a chain of synchronous reads
 * runs to its end in the caller's turn (see `Engine.synchronousReads`).
 */
export function after<T, U>(answer: Answer<T>, next: (value: T) => Answer<U>): Answer<U> {
  return answer instanceof Promise ? answer.then(next) : next(answer);
}
