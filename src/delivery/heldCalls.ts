import { HOLD_MS } from '../domain/webhookFaults.js';

/**
 * The calls held back by the fault `reorder` (domain/webhookFaults.ts), at most one per endpoint:
 * a call held waits until another call of its endpoint has been answered (`release`), or
 * {@link HOLD_MS} passed, so that the later call reaches the receiver first. Nothing is lost: a
 * held call is always sent.
 */
export interface HeldCalls {
  /** Holds a call of the endpoint: resolves when it may go; `false` when one of the endpoint is held already (this one goes now). */
  hold(endpointId: string): Promise<void> | false;
  /** A call of the endpoint was answered: the one held goes. */
  release(endpointId: string): void;
  /** Every held call goes (the worker stops). */
  releaseAll(): void;
}

export function heldCalls(holdMs = HOLD_MS): HeldCalls {
  const releases = new Map<string, () => void>();
  const release = (endpointId: string) => releases.get(endpointId)?.();
  return {
    hold(endpointId) {
      if (releases.has(endpointId)) return false;
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => release(endpointId), holdMs);
        releases.set(endpointId, () => {
          clearTimeout(timer);
          releases.delete(endpointId);
          resolve();
        });
      });
    },
    release,
    releaseAll: () => [...releases.keys()].forEach(release),
  };
}
