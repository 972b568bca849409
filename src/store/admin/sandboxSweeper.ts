import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AdminStore, ServerStore } from '../store.js';
import { giveWayToRequests } from '../vocabulary/requestsInProgress.js';
import type { StoreLog } from '../vocabulary/storeLog.js';

/** The lease that one server of a database holds while it sweeps (ServerStore.takeLease). */
export const SWEEPER_LEASE = 'sandbox-sweeper';
/** How long a sweeper's lease lasts unless renewed: a server that stops without giving it up is replaced after this. */
export const SWEEPER_LEASE_MS = 30_000;
/** How many expired sandboxes are read at a time. */
const BATCH = 20;

/** What the sweeper uses of the store: the expired sandboxes, their deletion, and the lease. */
export type SweeperStore = Pick<AdminStore, 'expiredSandboxes' | 'deleteTenant'> & Pick<ServerStore, 'takeLease' | 'releaseLease' | 'requestsInProgress'>;

/** Where the sweeper says what it removed (pino's signature). */
export interface SweepLog extends StoreLog {
  info(details: object, message: string): void;
}

export interface SandboxSweeper {
  /** One pass now (after the one in progress, if any): how many sandboxes this server removed. */
  sweep(): Promise<number>;
  /** Stops sweeping and gives the lease up, if it took it; resolves once the pass in progress (if any) has stopped. */
  stop(): Promise<void>;
}

/**
 * Removes the sandboxes whose time to live has ended (docs/administration.md#time-to-live), every
 * `everyMs`, in the background of each server. One server of a database sweeps at a time: the one
 * that holds the lease {@link SWEEPER_LEASE}, taken by compare-and-set when there is something
 * to remove, renewed before each removal, taken over by another once it has lasted {@link SWEEPER_LEASE_MS} unrenewed. Each
 * sandbox goes in a transaction of its own, through `AdminStore.deleteTenant`, only if still
 * expired then; after each, the sweeper gives way to the server's requests.
 */
export function startSandboxSweeper(store: SweeperStore, log: SweepLog, { everyMs, owner = newOwner() }: { everyMs: number; owner?: string }): SandboxSweeper {
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<number> = Promise.resolve(0);
  let stopped = false;

  /** Whether this server has taken the lease: a server that never did has none to give up at its stop (a write). */
  let tookLease = false;
  const holdLease = async () => {
    const now = Date.now();
    const held = await store.takeLease({ name: SWEEPER_LEASE, owner, now, until: now + SWEEPER_LEASE_MS });
    tookLease ||= held;
    return held;
  };
  const runPass = async (): Promise<number> => {
    let removed = 0;
    const giveWay = giveWayToRequests(store.requestsInProgress);
    // A read first: a server with nothing to sweep writes nothing (the lease is a write).
    while (!stopped) {
      const expired = await store.expiredSandboxes(Date.now(), BATCH);
      if (expired.length === 0) break;
      let progressed = false;
      for (const name of expired) {
        if (stopped || !(await holdLease())) return removed;
        const started = Date.now();
        if (await store.deleteTenant(name, { expiredAt: started })) {
          removed += 1;
          progressed = true;
          log.info({ tenant: name }, 'sandbox expired: removed with its keys and data');
        }
        await giveWay(Date.now() - started);
      }
      if (!progressed) break;
    }
    return removed;
  };
  const schedule = () => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(() => void sweep(), everyMs).unref();
  };
  const sweep = (): Promise<number> => {
    clearTimeout(timer);
    pass = pass
      .then(runPass)
      .catch((error: unknown) => {
        log.warn({ err: error }, 'expired sandboxes could not be removed now; they are tried again');
        return 0;
      })
      .finally(schedule);
    return pass;
  };
  schedule();
  return {
    sweep,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
      if (tookLease) await store.releaseLease(SWEEPER_LEASE, owner).catch(() => {});
    },
  };
}

/** This server among all of a database's: host, process and a random part. */
const newOwner = (): string => `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
