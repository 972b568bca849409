import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { IMPORT_LEASE_MS } from './tableImports.js';
import type { PendingImport } from '../vocabulary/writeShapes.js';
import type { ServerStore } from '../store.js';
import type { StoreLog } from '../vocabulary/storeLog.js';

/** How often a server looks for imports to run besides the pushes it takes itself (those it runs at once). */
const LOOK_EVERY_MS = 1000;

export interface ImportRunner {
  /** An import may be due now (a push was stored): look at once. */
  poke(): void;
  /** Stops looking; resolves once the import being run (if any) has stopped. */
  stop(): Promise<void>;
}

/**
 * The imports of data tables, run in the background of each server (docs/rules.md#table-imports).
 * Every server of a database looks for work in the database: an import whose debounce is over,
 * one this server started, and one whose server is gone: a process of this machine that no
 * longer exists (a server killed, restarted), or a server that has not said it works on it for
 * {@link IMPORT_LEASE_MS}. Whichever server claims an import first runs it (the claim is a
 * transaction); the others leave it. One import at a time per server, its tables one after the
 * other, each in a thread of the store's (off the event loop).
 */
export function startImportRunner(store: ServerStore, log: StoreLog): ImportRunner {
  const owner = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const runPass = async () => {
    for (const pending of await store.pendingImports()) {
      if (stopped) return;
      const now = Date.now();
      if (pending.status === 'scheduled' && pending.launchAt > now) continue;
      const gone = pending.status === 'started' && pending.owner !== owner && ownerGone(pending, now);
      if (pending.status === 'started' && pending.owner !== owner && !gone) continue;
      await store.runImport(pending, owner, gone ? { owner: pending.owner, heartbeatAt: pending.heartbeatAt } : undefined);
    }
  };
  const look = () => {
    if (stopped) return;
    if (pass) {
      again = true;
      return;
    }
    clearTimeout(timer);
    pass = runPass()
      .catch((error: unknown) => log.warn({ err: error }, 'imports could not be run now; they are tried again'))
      .finally(() => {
        pass = undefined;
        if (again) {
          again = false;
          look();
        } else if (!stopped) timer = setTimeout(look, LOOK_EVERY_MS).unref();
      });
  };
  look();
  return {
    poke: look,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}

/** Whether the server running a started import is gone: silent past the lease, or a process of this machine that has ended. */
function ownerGone({ owner, heartbeatAt }: PendingImport, now: number): boolean {
  if (heartbeatAt === null || heartbeatAt < now - IMPORT_LEASE_MS) return true;
  const [host, pid] = (owner ?? '').split('/');
  if (host !== hostname() || !pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === 'ESRCH';
  }
}
