/** What the writer thread is started with (see writerThread.ts). */
export interface WriterData {
  path: string;
  busyTimeoutMs: number;
  /** Whether the writer's commits checkpoint the WAL (SQLite's default), or a checkpoint thread does. */
  checkpoints: boolean;
  /** For tests of a writer that dies: the thread exits inside its first transaction, after its writes. */
  exitInFirstTransaction?: boolean;
}

/** Tells the writer to checkpoint by itself again (the checkpoint thread stopped). */
export const CHECKPOINT_BY_ITSELF = 'checkpoint by itself';
