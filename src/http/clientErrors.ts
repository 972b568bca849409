import { STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { requestIdFrom, type Logger } from './logging.js';
import { problems, type HttpProblem } from './problems.js';
import { NO_SNIFF } from './securityHeaders.js';

/**
 * How long a refused connection may keep sending after its answer before it is cut: closing
 * with unread input makes the kernel send a reset, which can destroy the answer on its way.
 */
const LINGER_MS = 1000;

/**
 * Answers what Node's HTTP parser refuses before the app sees a request (every error is a
 * problem: docs/rules.md#errors): headers past the size limit (431), headers or body too slow
 * (408), anything that is not HTTP/1.1 (400). The answer closes the connection, after the
 * answer to any request before the faulty one on it. A client that went away gets nothing.
 */
export function answerClientErrors(server: Server, logger: Logger, maxHeaderSize: number): void {
  const answered = new WeakSet<Duplex>();
  const refuse = (socket: Duplex, problem: HttpProblem, error: ParserError) => {
    if (!socket.writable) return;
    const requestId = requestIdFrom(undefined);
    logger.info({ reqId: requestId, status: problem.status, code: error.code }, 'request refused');
    socket.end(rawResponse(problem, requestId, isHead(error)));
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
  };
  server.on('clientError', (error: ParserError, socket: Duplex) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    const problem = problemOf(error, maxHeaderSize);
    const previous = responseInFlight(socket);
    if (problem === undefined || !socket.writable) {
      logger.debug({ code: error.code }, 'connection dropped');
      socket.destroy();
    } else if (previous?.req.complete) {
      // The fault is in a request pipelined after the one being answered: answer that one first.
      previous.once('finish', () => refuse(socket, problem, error));
    } else if (previous?.headersSent) {
      // The request being answered is at fault, and its answer has begun: nothing more can be said.
      socket.destroy();
    } else {
      refuse(socket, problem, error);
    }
  });
}

/** What Node's parser reports: `rawPacket` holds the bytes it was reading, when it has them. */
type ParserError = NodeJS.ErrnoException & { rawPacket?: Buffer };

/** An answer to HEAD has no body: a refused HEAD request gets the head of the problem only. */
function isHead(error: ParserError): boolean {
  return error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
}

function problemOf(error: ParserError, maxHeaderSize: number): HttpProblem | undefined {
  const code = error.code ?? '';
  if (code === 'HPE_HEADER_OVERFLOW') return problems.headersTooLarge(maxHeaderSize);
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return problems.requestTimeout();
  if (code.startsWith('HPE_')) return problems.malformedRequest();
  return undefined;
}

/**
 * The response Node is writing on this connection, if any (`_httpMessage`: Node's own default
 * handler of `clientError` looks at it too).
 */
export function responseInFlight(socket: Duplex): ServerResponse | undefined {
  return (socket as { _httpMessage?: ServerResponse })._httpMessage ?? undefined;
}

function rawResponse(problem: HttpProblem, requestId: string, headOnly: boolean): string {
  const body = JSON.stringify(problem);
  return [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    `${NO_SNIFF.name}: ${NO_SNIFF.value}`,
    'Connection: close',
    '',
    headOnly ? '' : body,
  ].join('\r\n');
}
