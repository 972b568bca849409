import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, Registry } from 'prom-client';
import type { Metrics, MetricsSharing, Scrape } from '../http/metrics.js';
import { isServeWorker, type PrimaryService } from './serveWorkers.js';

/**
 * `serve --metrics` across `--workers`: a scrape reaches one worker, which asks the primary; the
 * primary gathers every worker's registry (prom-client's AggregatorRegistry, over the cluster's
 * IPC channel) and answers the sum. Without `--workers`, a server answers its own figures.
 */
interface Ask {
  metricsAsk: number;
}
interface Answer {
  metricsAnswer: { id: number; text?: string; error?: string };
}

const isAsk = (message: unknown): message is Ask => typeof (message as Ask | null)?.metricsAsk === 'number';
const isAnswer = (message: unknown): message is Answer => typeof (message as Answer | null)?.metricsAnswer?.id === 'number';

/** In the primary: answers a worker's ask with the figures of all workers. */
export function metricsService(enabled: boolean | undefined): PrimaryService[] {
  if (!enabled || cluster.isWorker) return [];
  const aggregator = new AggregatorRegistry();
  return [
    (worker: Worker) => {
      worker.on('message', (message: unknown) => {
        if (!isAsk(message)) return;
        const reply = (answer: Answer['metricsAnswer']) => worker.isConnected() && worker.send({ metricsAnswer: answer } satisfies Answer);
        aggregator.clusterMetrics().then(
          (text) => reply({ id: message.metricsAsk, text }),
          (error: Error) => reply({ id: message.metricsAsk, error: error.message }),
        );
      });
    },
  ];
}

/** What `--metrics` gives `startServer`: in a worker, the figures are shared through the primary. */
export function metricsOption(enabled: boolean | undefined): true | MetricsSharing | undefined {
  if (!enabled) return undefined;
  return isServeWorker() ? shareThroughPrimary : true;
}

const shareThroughPrimary: MetricsSharing = (metrics: Metrics) => {
  AggregatorRegistry.setRegistries([metrics.registry]);
  new AggregatorRegistry(); // makes this worker answer the primary's requests for its registry
  let lastId = 0;
  const waiting = new Map<number, (answer: Answer['metricsAnswer']) => void>();
  process.on('message', (message: unknown) => {
    if (!isAnswer(message)) return;
    waiting.get(message.metricsAnswer.id)?.(message.metricsAnswer);
    waiting.delete(message.metricsAnswer.id);
  });
  return () =>
    new Promise<Scrape>((resolve, reject) => {
      if (!process.connected || !process.send) return reject(new Error('the primary is gone'));
      const id = (lastId += 1);
      waiting.set(id, ({ text, error }) => (text === undefined ? reject(new Error(error)) : resolve({ text, contentType: Registry.PROMETHEUS_CONTENT_TYPE })));
      process.send({ metricsAsk: id } satisfies Ask);
    });
};
