import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { Command, Option } from 'commander';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { integerIn, parseText } from './arguments.js';
import { CommandFailure } from './errors.js';

/** The largest call body the listener reads; a larger one is answered 413. */
const BODY_CAP = 16 * 1024 * 1024;

interface ListenOptions {
  port: number;
  host: string;
  signingSecret?: string;
  secret?: string;
  failFirst: number;
}

/** What one call came to, as the listener prints it. */
interface Received {
  readonly status: number;
  readonly line: string;
}

function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_CAP) {
        resolve(undefined);
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function headerOf(request: IncomingMessage, name: string): string {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

/** The statement a call's body names, in one phrase (the body is shown as the receiver got it; nothing is assumed of it). */
function summaryOf(text: string): string {
  try {
    const body = JSON.parse(text) as { type?: unknown; data?: { statement?: { id?: unknown; user?: { email?: unknown }; month?: unknown; status?: unknown }; records?: unknown } };
    const statement = body.data?.statement;
    const records = Array.isArray(body.data?.records) ? `${body.data.records.length} record(s)` : 'no records listed';
    return `${String(body.type)} ${String(statement?.id)} ${String(statement?.user?.email)} ${String(statement?.month)}: ${records}`;
  } catch {
    return `a body that is not JSON (${text.length} bytes)`;
  }
}

/** Checks one call against the secrets given, and picks the answer. */
function receive(request: IncomingMessage, body: string, options: ListenOptions, failuresLeft: number): Received {
  const checks: string[] = [];
  let status = 204;
  if (options.signingSecret !== undefined) {
    try {
      new Webhook(options.signingSecret).verify(body, {
        'webhook-id': headerOf(request, 'webhook-id'),
        'webhook-timestamp': headerOf(request, 'webhook-timestamp'),
        'webhook-signature': headerOf(request, 'webhook-signature'),
      });
      checks.push('signature verified');
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      checks.push(`signature INVALID (${error.message})`);
      status = 401;
    }
  } else {
    checks.push('signature not checked (no --signing-secret)');
  }
  if (options.secret !== undefined) {
    const matches = sameText(headerOf(request, 'x-webhook-secret'), options.secret);
    checks.push(matches ? 'X-Webhook-Secret matches' : 'X-Webhook-Secret WRONG');
    if (!matches) status = 401;
  }
  if (status === 204 && failuresLeft > 0) {
    status = 500;
    checks.push('answered 500 on purpose (--fail-first)');
  }
  const id = headerOf(request, 'webhook-id') || '(no webhook-id)';
  return { status, line: `${new Date().toISOString()} ${id} ${summaryOf(body)}; ${checks.join('; ')} -> ${status}` };
}

async function listen(options: ListenOptions): Promise<void> {
  let failuresLeft = options.failFirst;
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const body = await readBody(request);
    if (body === undefined) {
      response.writeHead(413).end();
      process.stdout.write(`${new Date().toISOString()} a call past ${BODY_CAP} bytes -> 413\n`);
      return;
    }
    const received = receive(request, body.toString('utf8'), options, failuresLeft);
    if (received.status === 500) failuresLeft -= 1;
    response.writeHead(received.status).end();
    process.stdout.write(`${received.line}\n`);
  };
  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new CommandFailure(`cannot listen on ${options.host}:${options.port}: ${error.message}`)));
    server.listen(options.port, options.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  process.stdout.write(`listening on http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/**
 * `compdata webhooks listen`: a receiver of webhook calls for trying them out on one machine. It
 * prints one line per call (its `webhook-id`, the statement and how many records it holds, and
 * whether the signature and `X-Webhook-Secret` are right when they are given) and answers `204`,
 * or `401` when a check fails, or `500` for the first calls asked to fail (to watch retries).
 */
export function webhooksCommand(): Command {
  const listenCommand = new Command('listen')
    .description('receive webhook calls on this machine and print one line per call')
    .option('--port <port>', 'the port to listen on (0: any free one)', integerIn(0, 65535), 9009)
    .option('--host <address>', 'the address to listen on', parseText, '127.0.0.1')
    .addOption(new Option('--signing-secret <whsec>', "the endpoint's signing secret: verify each call's signature").env('COMPDATA_WEBHOOK_SIGNING_SECRET').argParser(parseText))
    .addOption(new Option('--secret <value>', "the endpoint's X-Webhook-Secret: check each call's header").env('COMPDATA_WEBHOOK_SECRET').argParser(parseText))
    .option('--fail-first <count>', 'answer 500 to the first COUNT calls that pass the checks', integerIn(0, 1_000_000), 0)
    .addHelpText('after', '\nThe first line of stdout is "listening on <url>". SIGINT or SIGTERM stops it.')
    .action((options: ListenOptions) => listen(options));
  return new Command('webhooks').description('tools for the receiving end of webhook calls').addCommand(listenCommand);
}
