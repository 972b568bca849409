import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/**
 * HTTP over a bare socket, for what node:http's client will not send (broken requests, a
 * request written a byte at a time) or will not do (never read the answer).
 */
export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** Whether the server closed the connection. */
  closed: boolean;
}

export async function openSocket(base: string): Promise<Socket> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  return socket;
}

/** Everything the server sends until it closes the connection or `waitMs` pass. */
export async function readUntilClosed(socket: Socket, waitMs: number): Promise<{ bytes: Buffer; closed: boolean }> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), waitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.once('error', () => undefined);
  });
  return { bytes: Buffer.concat(chunks), closed };
}

/** Parses one HTTP/1.1 response with a Content-Length body (what the server sends on a refusal). */
export function parseAnswer(bytes: Buffer, closed: boolean): RawAnswer {
  const text = bytes.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response head in ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine!)?.[1]);
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const length = Number(headers.get('content-length') ?? 0);
  const body = bytes.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
  return { status, headers, text: body.subarray(0, length).toString('utf8'), closed };
}

/**
 * The responses of pipelined requests, one after another, each with a Content-Length body;
 * `truncated` says whether bytes were left over that do not make a whole response.
 */
export function parseAnswers(bytes: Buffer): { answers: RawAnswer[]; truncated: boolean } {
  const answers: RawAnswer[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return { answers, truncated: true };
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(rest.subarray(0, end).toString('latin1'))?.[1] ?? 0);
    if (rest.length < end + 4 + length) return { answers, truncated: true };
    answers.push(parseAnswer(rest.subarray(0, end + 4 + length), false));
    rest = rest.subarray(end + 4 + length);
  }
  return { answers, truncated: false };
}

/** Sends `request` as is and reads the answer until the server closes (or `waitMs` pass). */
export async function rawExchange(base: string, request: string | Buffer, waitMs = 3000): Promise<RawAnswer> {
  const socket = await openSocket(base);
  socket.write(request);
  const { bytes, closed } = await readUntilClosed(socket, waitMs);
  socket.destroy();
  return parseAnswer(bytes, closed);
}
