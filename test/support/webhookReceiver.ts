import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A call as a receiver got it. */
interface ReceivedCall {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** When it arrived (milliseconds since the epoch). */
  readonly at: number;
  readonly path: string;
}

/**
 * What the receiver does with a call (the `n`th it got, from 0): answer with a status (at once,
 * or once the promise resolves), or hold the request open without an answer (`hold`) until the
 * receiver closes.
 */
export type Behaviour = (call: ReceivedCall, n: number) => number | 'hold' | Promise<number>;

export interface WebhookReceiver {
  /** Where calls go: `http://127.0.0.1:port/hook`. */
  readonly url: string;
  /** Every call got so far, in order of arrival (held ones included). */
  readonly calls: ReceivedCall[];
}

/** A real receiver of webhook calls: a node:http server on 127.0.0.1, closed when the test ends. */
export async function startReceiver(t: { after(fn: () => Promise<void>): void }, behaviour: Behaviour = () => 204): Promise<WebhookReceiver> {
  const calls: ReceivedCall[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const call = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), path: request.url ?? '' };
      calls.push(call);
      const answer = behaviour(call, calls.length - 1);
      if (answer === 'hold') held.push(response);
      else void Promise.resolve(answer).then((status) => response.writeHead(status, { 'content-type': 'text/plain' }).end(`answer ${status}`));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(async () => {
    for (const response of held) response.destroy();
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, calls };
}
