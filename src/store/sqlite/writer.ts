import type { StoreLog } from '../vocabulary/storeLog.js';
import type { TenantWrite, WriteOutcome, WrittenBy } from '../vocabulary/writeShapes.js';
import { startWriteThread } from '../threads/writeThreadClient.js';
import { CHECKPOINT_BY_ITSELF, type WriterData } from './writerProtocol.js';

export interface Writer {
  write<W extends TenantWrite>(tenantId: number, write: W): Promise<WriteOutcome<WrittenBy<W>>>;
  /** The writer's commits checkpoint the WAL again (the checkpoint thread stopped). */
  checkpointByItself(): void;
  /** Lets the writes in progress finish, then ends the thread. */
  stop(): Promise<void>;
}

/**
 * The main-thread side of the SQLite writer thread (writerThread.ts), started on the first
 * write and again after a death (../threads/writeThreadClient.ts).
 */
export function startWriter(data: WriterData, log: StoreLog): Writer {
  let faultsLeft = data.exitInFirstTransaction === true;
  let checkpoints = data.checkpoints;
  const thread = startWriteThread({
    base: import.meta.url,
    name: 'writerThread',
    title: 'writer thread',
    busyTimeoutMs: data.busyTimeoutMs,
    log,
    data() {
      const started = { ...data, checkpoints, exitInFirstTransaction: faultsLeft } satisfies WriterData;
      faultsLeft = false;
      return started;
    },
  });
  return {
    write: (tenantId, write) => thread.write(tenantId, write),
    checkpointByItself() {
      checkpoints = true;
      thread.post(CHECKPOINT_BY_ITSELF);
    },
    stop: () => thread.stop(),
  };
}
