import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { WriteOutcome } from '../vocabulary/writeShapes.js';
import { STOP, type WriteReply, type WriteRequest } from './writeThreadProtocol.js';

/** What a write thread does with the messages of its server (writeThreadClient.ts). */
export interface WriteService {
  write(request: WriteRequest): Promise<WriteOutcome<unknown>>;
  /** Closes the thread's connection: the thread then ends. */
  stop(): void | Promise<void>;
  /** A message of the thread's own kind (neither a write nor {@link STOP}). */
  other?(message: string): void;
}

/**
 * The nice value of a write thread (on Linux a per-thread attribute: `setPriority` without a
 * pid changes the calling thread only). On a busy machine the event loop thread gets the CPU
 * first, so that reads, accepts and health checks keep their latency while writes queue; a
 * write still gets about a quarter of a contended core.
 */
export const WRITE_THREAD_NICE = 5;

/**
 * The thread side of a write thread: the server's messages, taken one after the other, in
 * order (a write's transaction spans its awaits), at a lower priority than the event loop; each
 * write answered with its outcome, or with the message and code of the error it failed with.
 */
export function serveWrites(service: WriteService): void {
  setPriority(WRITE_THREAD_NICE);
  let queue = Promise.resolve();
  parentPort!.on('message', (message: WriteRequest | string) => {
    queue = queue.then(() => handle(service, message));
  });
}

async function handle(service: WriteService, message: WriteRequest | string): Promise<void> {
  if (message === STOP) {
    await service.stop();
    process.exit(0);
  }
  if (typeof message === 'string') return service.other?.(message);
  let reply: WriteReply;
  try {
    reply = { id: message.id, outcome: await service.write(message) };
  } catch (error) {
    const { message: text, code } = error as { message?: unknown; code?: unknown };
    reply = { id: message.id, error: { message: String(text), code: typeof code === 'string' ? code : undefined } };
  }
  parentPort!.postMessage(reply);
}
