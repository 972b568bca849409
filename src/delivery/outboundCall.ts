import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import { addressLiteral, refusedAddress } from '../domain/addressRanges.js';
import { publicLookup, RefusedAddress } from './publicLookup.js';

export interface OutboundCall {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface OutboundOptions {
  /** The whole call: connecting, sending, the answer's status and the head of its body. */
  readonly timeoutMs: number;
  /** Call private, loopback and link-local addresses too (`serve --webhook-allow-private`). */
  readonly allowPrivate: boolean;
  /** How much of the answer's body is read (then the connection is closed). */
  readonly answerHeadBytes: number;
}

export type CallResult =
  | { readonly outcome: 'answered'; readonly status: number; readonly answerHead: string; readonly durationMs: number }
  | { readonly outcome: 'error'; readonly error: string; readonly durationMs: number };

/** The largest status line and headers of an answer read (Node's own default, said once here). */
const MAX_ANSWER_HEADER_BYTES = 16 * 1024;

/**
 * One webhook call: a `POST` of `call.body` with `call.headers` (docs/administration.md#private-addresses).
 * Never throws: every failure is an `error` result, whose text names what failed (`timeout`,
 * `refused: …`, a connection error's code) and never a header's value or the body.
 *
 * - Only `http:` and `https:`. Unless `allowPrivate`, the address connected to must be public
 *   (src/domain/addressRanges.ts): an IP literal host is checked before anything is done, a name
 *   by the socket's lookup (every address it resolves to), and the socket's remote address once
 *   connected. A refused address is `refused: <why>`; nothing is sent to it.
 * - Redirects are not followed: a `3xx` is an answer like any other.
 * - `timeoutMs` bounds the whole call; past it the connection is destroyed (`timeout`).
 * - At most `answerHeadBytes` of the answer's body are read, decoded as UTF-8 (bytes that are
 *   not become U+FFFD; a character cut at the end is left out); then the connection is closed.
 */
export function sendCall(call: OutboundCall, options: OutboundOptions): Promise<CallResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: string): CallResult => ({ outcome: 'error', error, durationMs: elapsed() });
  let url: URL;
  try {
    url = new URL(call.url);
  } catch {
    return Promise.resolve(failed('refused: not a URL'));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.resolve(failed(`refused: the scheme ${url.protocol} is neither http: nor https:`));
  const literal = addressLiteral(url.hostname);
  const refusedLiteral = options.allowPrivate || literal === undefined ? undefined : refusedAddress(literal);
  if (refusedLiteral !== undefined) return Promise.resolve(failed(`refused: ${refusedLiteral}`));
  return new Promise((resolve) => {
    let settled = false;
    let request: ClientRequest | undefined;
    const finish = (result: (durationMs: number) => CallResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request?.destroy();
      resolve(result(elapsed()));
    };
    const fail = (error: string) => finish((durationMs) => ({ outcome: 'error', error, durationMs }));
    const timer = setTimeout(() => fail('timeout'), options.timeoutMs);
    try {
      request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, requestOptions(call, options));
    } catch (error) {
      fail(`invalid request: ${codeOf(error)}`);
      return;
    }
    request.on('error', (error) => fail(error instanceof RefusedAddress ? `refused: ${error.message}` : `connection failed: ${codeOf(error)}`));
    if (!options.allowPrivate) request.on('socket', (socket) => checkConnected(socket, request));
    request.on('response', (answer) => readHead(answer, options.answerHeadBytes, (head) => finish((durationMs) => ({ outcome: 'answered', status: answer.statusCode ?? 0, answerHead: head, durationMs }))));
    request.end(call.body);
  });
}

function requestOptions(call: OutboundCall, options: OutboundOptions): RequestOptions {
  return {
    method: 'POST',
    headers: { ...call.headers, 'content-length': String(Buffer.byteLength(call.body)) },
    // A connection of its own for every call: nothing connected earlier is reused unchecked.
    agent: false,
    maxHeaderSize: MAX_ANSWER_HEADER_BYTES,
    ...(!options.allowPrivate && { lookup: publicLookup }),
  };
}

/** Once connected, the socket's remote address is checked again: the address actually connected to. */
function checkConnected(socket: Socket, request: ClientRequest): void {
  socket.once('connect', () => {
    const refused = socket.remoteAddress === undefined ? 'no remote address' : refusedAddress(socket.remoteAddress);
    if (refused !== undefined) request.destroy(new RefusedAddress(`connected to a ${refused}`));
  });
}

/** Reads at most `limit` bytes of the answer's body, then stops reading; `done` gets them decoded. */
function readHead(answer: IncomingMessage, limit: number, done: (head: string) => void): void {
  const decoder = new StringDecoder('utf8');
  let head = '';
  let left = limit;
  const end = () => done(head);
  if (left <= 0) return end();
  answer.on('data', (chunk: Buffer) => {
    const taken = chunk.length > left ? chunk.subarray(0, left) : chunk;
    head += decoder.write(taken);
    left -= taken.length;
    if (left <= 0) end();
  });
  answer.on('end', () => end());
  // Cut off after the status came: the status is the answer; the head is what arrived.
  answer.on('error', () => end());
  answer.on('close', () => end());
}

/** A Node error's code (`ECONNREFUSED`, `ERR_INVALID_CHAR`…): never its message, which may quote a header's value. */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'unknown';
}
