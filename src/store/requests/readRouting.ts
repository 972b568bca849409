import type { ReplicaServer } from '../engine/engine.js';
import type { ReplicaState } from '../vocabulary/readShapes.js';
import type { StoreLog } from '../vocabulary/storeLog.js';

export interface ReadRoutingOptions {
  /** How long a read with a consistency token waits for a replica to replay past it before the primary serves it. */
  waitMs: number;
  /** A replica whose data is older than this (or that does not answer) is taken out of rotation. */
  maxLagMs: number;
  /** How often replicas are checked (their replay positions, their lag; those out of rotation, again). */
  checkIntervalMs: number;
}

export const DEFAULT_READ_ROUTING: ReadRoutingOptions = { waitMs: 100, maxLagMs: 5_000, checkIntervalMs: 250 };

/** What the router knows of one replica. */
interface Tracked {
  readonly server: ReplicaServer;
  inRotation: boolean;
  /** The replay position last seen (a lower bound of the replica's: it only moves forward). */
  position: bigint;
  /** How old the replica's data was at the last check (see `lagOf`); undefined while it does not answer. */
  lagMs: number | undefined;
  reason: string | undefined;
  reads: number;
  removals: number;
  /** Reads refused by it (a server that stopped answering) and served by another. */
  failures: number;
}

/** A read's server: a replica, or the primary (`undefined`). */
export type ReadServer = ReplicaServer | undefined;

export interface ReadRouter {
  /**
   * The server for a read: the next replica in rotation; with `atLeast` (a consistency token),
   * one that has replayed up to it, waiting at most `waitMs` for one; else the primary.
   * Resolves with the replica's replay position known then (a lower bound).
   */
  choose(atLeast: bigint | undefined): Promise<{ server: ReadServer; position: bigint | undefined }>;
  /**
   * A read on the replica failed (it is served again by the primary): counted; and when the
   * server does not answer (`unreachable`), out of rotation until a check finds it back.
   */
  failed(server: ReplicaServer, error: unknown, unreachable: boolean): void;
  /** A read served by the primary (for the share of reads of each server). */
  servedByPrimary(): void;
  states(): ReplicaState[];
  close(): void;
}

/** A sample of the primary's log position and when it was taken, for measuring how far behind a replica is. */
interface Sample {
  at: number;
  position: bigint;
}

/**
 * Spreads reads over replicas in turn, and keeps the rotation honest: every `checkIntervalMs`
 * the primary's log position is sampled and each replica's replay position read; a replica whose
 * data is older than `maxLagMs` (its replay position is behind a sample of the primary taken that
 * long ago) or that does not answer leaves the rotation, and comes back at the first check that
 * finds it answering and caught up. Every change is logged. With no replica in rotation, every
 * read goes to the primary.
 */
export function readRouter(
  replicas: readonly ReplicaServer[],
  primaryPosition: () => Promise<bigint>,
  options: ReadRoutingOptions,
  log: StoreLog,
): ReadRouter {
  const tracked: Tracked[] = replicas.map((server) => ({
    server,
    // Out until the first check finds it answering and caught up.
    inRotation: false,
    position: 0n,
    lagMs: undefined,
    reason: 'not checked yet',
    reads: 0,
    removals: 0,
    failures: 0,
  }));
  const samples: Sample[] = [];
  let primaryReads = 0;
  let turn = 0;

  const leave = (entry: Tracked, reason: string, details: object) => {
    entry.reason = reason;
    if (!entry.inRotation) return;
    entry.inRotation = false;
    entry.removals += 1;
    log.warn({ replica: entry.server.name, reason, ...details }, 'a read replica left the rotation; reads go to the others, or the primary');
  };
  const join = (entry: Tracked) => {
    entry.reason = undefined;
    if (entry.inRotation) return;
    entry.inRotation = true;
    // Its first joining, at start, is no news; a return after leaving is.
    if (entry.removals > 0) log.warn({ replica: entry.server.name, lagMs: entry.lagMs }, 'a read replica is back in the rotation');
  };

  /** How old the replica's data is: the age of the oldest sample of the primary it has not replayed (0 when it has them all). */
  const lagOf = (replayed: bigint, now: number): number => {
    const oldest = samples.find((sample) => sample.position > replayed);
    return oldest === undefined ? 0 : now - oldest.at;
  };

  let checking: Promise<void> | undefined;
  const check = async () => {
    const now = Date.now();
    try {
      samples.push({ at: now, position: await primaryPosition() });
    } catch {
      // The primary does not answer: replicas are judged against the samples already taken.
    }
    // Samples older than the bound say no more than the one just past it.
    while (samples.length > 1 && samples[1]!.at < now - options.maxLagMs * 2) samples.shift();
    await Promise.all(
      tracked.map(async (entry) => {
        try {
          const replayed = await entry.server.replayed();
          if (replayed > entry.position) entry.position = replayed;
          entry.lagMs = lagOf(replayed, Date.now());
          if (entry.lagMs > options.maxLagMs) leave(entry, `its data is ${entry.lagMs} ms old, past the bound of ${options.maxLagMs} ms`, { lagMs: entry.lagMs });
          else join(entry);
        } catch (error) {
          entry.lagMs = undefined;
          leave(entry, 'it does not answer', { err: error });
        }
      }),
    );
  };
  const runCheck = () => (checking ??= check().finally(() => (checking = undefined)));
  const timer = replicas.length > 0 ? setInterval(() => void runCheck(), options.checkIntervalMs) : undefined;
  timer?.unref();
  const ready = replicas.length > 0 ? runCheck() : Promise.resolve();

  /** The replicas in rotation, from the next one in turn. */
  const inTurn = (): Tracked[] => {
    const rotation = tracked.filter((entry) => entry.inRotation);
    if (rotation.length === 0) return [];
    turn = (turn + 1) % rotation.length;
    return [...rotation.slice(turn), ...rotation.slice(0, turn)];
  };

  /** Polls the replica's replay position until it reaches `atLeast` or `deadline` passes. */
  const waitFor = async (entry: Tracked, atLeast: bigint, deadline: number): Promise<boolean> => {
    for (let pause = 1; ; pause = Math.min(pause * 2, 16)) {
      const replayed = await entry.server.replayed();
      if (replayed > entry.position) entry.position = replayed;
      if (replayed >= atLeast) return true;
      if (Date.now() + pause > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  };

  const served = (entry: Tracked) => {
    entry.reads += 1;
    return { server: entry.server, position: entry.position };
  };
  const primary = () => {
    primaryReads += 1;
    return { server: undefined, position: undefined };
  };

  return {
    async choose(atLeast) {
      await ready;
      const candidates = inTurn();
      if (candidates.length === 0) return primary();
      if (atLeast === undefined) return served(candidates[0]!);
      const caughtUp = candidates.find((entry) => entry.position >= atLeast);
      if (caughtUp) return served(caughtUp);
      const deadline = Date.now() + options.waitMs;
      const first = candidates[0]!;
      try {
        if (await waitFor(first, atLeast, deadline)) return served(first);
      } catch (error) {
        this.failed(first.server, error, true);
      }
      return primary();
    },
    failed(server, error, unreachable) {
      const entry = tracked.find((candidate) => candidate.server === server)!;
      entry.failures += 1;
      if (unreachable) leave(entry, 'a read on it failed: it does not answer', { err: error });
      else log.warn({ replica: server.name, err: error }, 'a read failed on a read replica; the primary serves it');
    },
    servedByPrimary: () => void (primaryReads += 1),
    states: () => [
      { name: 'primary', inRotation: true, reads: primaryReads, removals: 0, failures: 0 },
      ...tracked.map((entry) => ({
        name: entry.server.name,
        inRotation: entry.inRotation,
        reads: entry.reads,
        removals: entry.removals,
        failures: entry.failures,
        position: entry.position.toString(),
        ...(entry.lagMs !== undefined && { lagMs: entry.lagMs }),
        ...(entry.reason !== undefined && { reason: entry.reason }),
      })),
    ],
    close: () => clearInterval(timer),
  };
}
