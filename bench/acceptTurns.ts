/**
 * `node --import tsx bench/acceptTurns.ts [CONNECTIONS] [SECONDS]`: why handlers run through
 * `src/store/requests/fairQueue.ts`. A plain node:http server whose handler holds the thread for 11 ms
 * (what a bulk PUT of 200 items costs), driven by autocannon, twice: the handler run directly
 * in the request's callback, then through a fair queue. Prints when each connection was
 * accepted and the latency percentiles; writes them to bench/results/accept-turns-<time>.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { fairQueue } from '../src/store/requests/fairQueue.js';
import { percentile } from './stats.js';

const connections = Number(process.argv[2] ?? 64);
const seconds = Number(process.argv[3] ?? 5);
const HANDLER_MS = 11;

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

async function measure(queued: boolean): Promise<string[]> {
  const run = fairQueue();
  const started = Date.now();
  const accepted: number[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const respond = () => {
        busyFor(HANDLER_MS);
        res.end('ok');
      };
      if (queued) void run(respond);
      else respond();
    });
  });
  server.on('connection', () => accepted.push(Date.now() - started));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const latencies: number[] = [];
  await new Promise<void>((resolve, reject) => {
    const options = { url: `http://127.0.0.1:${port}`, connections, duration: seconds, method: 'PUT' as const, body: 'x'.repeat(30_000) };
    const instance = autocannon(options, (error?: Error) => (error ? reject(error) : resolve()));
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const sorted = Float64Array.from(latencies).sort();
  const at = (p: number) => percentile(sorted, p).toFixed(0);
  return [
    `| ${queued ? 'through fairQueue' : 'in the request callback'} | ${accepted.length} of ${connections} | ${accepted.at(-1)} | ${sorted.length} | ${at(50)} | ${at(99)} | ${at(100)} |`,
  ];
}

const lines = [
  `${HANDLER_MS} ms handler, ${connections} connections, ${seconds} s, node ${process.version}, libuv ${process.versions.uv}`,
  '',
  '| handler run | connections accepted | last accepted at ms | responses | p50 ms | p99 ms | max ms |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...(await measure(false)),
  ...(await measure(true)),
];
console.log(lines.join('\n'));
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/accept-turns-${new Date().toISOString().replace(/[:.]/g, '-')}.md`;
writeFileSync(file, `${lines.join('\n')}\n`);
console.log(`\nwritten to ${file}`);
