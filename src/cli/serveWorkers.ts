import cluster, { type Worker } from 'node:cluster';
import { endLog, type Logger } from '../http/logging.js';

/** A worker's word to the primary: it listens at `url`. */
interface Listening {
  listening: string;
}

const isListening = (message: unknown): message is Listening =>
  typeof (message as Listening | null)?.listening === 'string';

/** Tells the primary that this worker listens (call once, after `listen`). */
export function reportListening(url: string): void {
  process.send?.({ listening: url } satisfies Listening);
}

/** Something the primary does for its workers (such as keeping the rate-limit buckets): attached to every worker forked. */
export type PrimaryService = (worker: Worker) => void;

export const isServeWorker = (): boolean => cluster.isWorker;

/** A worker that dies sooner than this after its start is replaced only after a pause (doubling up to MAX_PAUSE_MS). */
const STEADY_MS = 1_000;
const MAX_PAUSE_MS = 5_000;

/**
 * `serve --workers N` (N > 1), in the primary process: forks N processes that run this same
 * command line as cluster workers, each a whole server (its own store, writer thread and limits)
 * on the one port the primary holds; connections are handed out in turn. The first line of
 * stdout, `listening on <url>`, is written once every worker listens; a worker that fails to
 * start fails the command (with its exit code, its error on stderr). Afterwards a worker that dies is logged
 * and replaced. The first SIGTERM or SIGINT is passed on to every worker, which finishes its
 * requests in flight; the primary exits 0 once all have ended. A second signal ends them at once.
 */
export async function runServeWorkers(count: number, logger: Logger, services: readonly PrimaryService[] = []): Promise<number> {
  let phase: 'starting' | 'serving' | 'stopping' = 'starting';
  let pause = 0;
  /** Forks a worker that, should it die while serving, is logged and replaced (after a pause when it died young). */
  const fork = (): Worker => {
    const worker = cluster.fork();
    for (const service of services) service(worker);
    const born = Date.now();
    worker.once('exit', (code, signal) => {
      if (phase !== 'serving') return;
      pause = Date.now() - born < STEADY_MS ? Math.min(MAX_PAUSE_MS, Math.max(100, pause * 2)) : 0;
      logger.error({ workerPid: worker.process.pid, code, signal, restartInMs: pause }, 'a server worker died; starting another');
      setTimeout(() => phase === 'serving' && fork(), pause);
    });
    return worker;
  };

  const starting = Array.from({ length: count }, fork);
  const url = await new Promise<string | { exitCode: number | null }>((resolve) => {
    let listening = 0;
    for (const worker of starting) {
      worker.on('message', (message: unknown) => {
        if (isListening(message) && (listening += 1) === count) resolve(message.listening);
      });
      worker.once('exit', (exitCode) => resolve({ exitCode }));
    }
  });
  if (typeof url !== 'string') {
    phase = 'stopping';
    for (const worker of starting) worker.process.kill('SIGKILL');
    return url.exitCode || 1;
  }
  phase = 'serving';
  process.stdout.write(`listening on ${url}\n`);

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  phase = 'stopping';
  const running = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined && !worker.isDead());
  logger.info({ signal, workers: running.length }, 'stopping: every worker finishes its requests in flight');
  const ended = Promise.all(running.map((worker) => new Promise<void>((resolve) => (worker.isDead() ? resolve() : worker.once('exit', () => resolve())))));
  for (const worker of running) worker.process.kill('SIGTERM');
  const atOnce = (): void => running.forEach((worker) => worker.process.kill('SIGKILL'));
  process.once('SIGTERM', atOnce);
  process.once('SIGINT', atOnce);
  await ended;
  logger.info('stopped');
  await endLog(logger);
  return 0;
}
