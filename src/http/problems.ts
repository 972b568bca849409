import type { Context } from 'koa';
import type { ParamProblem } from '../domain/paging.js';

/**
 * Every error a client can get (docs/rules.md#errors), as one class with a factory per kind.
 * `code` is stable: it names the problem `type` (`urn:compdata:problem:<code>`). 4xx details
 * say what is wrong; 5xx details say nothing about the inside.
 */
export class HttpProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly errors?: readonly ParamProblem[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    title: string,
    detail: string,
    errors?: readonly ParamProblem[],
    headers: Readonly<Record<string, string>> = {},
  ) {
    // An answer to the client, not a fault: no stack is collected. Collecting one (the frames of
    // every middleware and awaited call below) was the largest single cost of a 401 or a 503.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(detail);
    Error.stackTraceLimit = stackTraceLimit;
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = detail;
    this.errors = errors;
    this.headers = headers;
  }

  /** The `application/problem+json` body (RFC 9457). */
  toJSON(): Record<string, unknown> {
    const body: Record<string, unknown> = {
      type: `urn:compdata:problem:${this.code}`,
      title: this.title,
      status: this.status,
      detail: this.detail,
    };
    if (this.errors) body.errors = this.errors;
    return body;
  }
}

/** Answers with `problem`: its status, its headers, and its document as `application/problem+json`. */
export function respondWithProblem(ctx: Context, problem: HttpProblem): void {
  ctx.status = problem.status;
  ctx.set(problem.headers);
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify(problem);
}

export const problems = {
  badRequest: (errors: readonly ParamProblem[], detail = 'The request does not match the API contract.') =>
    new HttpProblem(400, 'bad-request', 'Bad Request', detail, errors),
  unauthorized: () => new HttpProblem(401, 'unauthorized', 'Unauthorized', 'A valid X-API-Key header is required.'),
  /** The administration API without the administration token (adminApi.ts). */
  adminUnauthorized: () =>
    new HttpProblem(401, 'unauthorized', 'Unauthorized', 'A valid Authorization: Bearer header with the administration token is required.'),
  /** The resource to create exists, or the change asked for is not allowed in its state (`errors`: where). */
  conflict: (detail: string, errors?: readonly ParamProblem[]) => new HttpProblem(409, 'conflict', 'Conflict', detail, errors),
  /** A key that may only read, on an operation that writes. */
  forbidden: () =>
    new HttpProblem(403, 'forbidden', 'Forbidden', 'This API key may only read: a write needs a key created with --scope write.'),
  notFound: (detail: string) => new HttpProblem(404, 'not-found', 'Not Found', detail),
  methodNotAllowed: (method: string, path: string, allow: readonly string[]) =>
    new HttpProblem(405, 'method-not-allowed', 'Method Not Allowed', `${method} is not allowed on ${path}.`, undefined, {
      Allow: allow.join(', '),
    }),
  malformedRequest: () =>
    new HttpProblem(400, 'bad-request', 'Bad Request', 'The request is not valid HTTP/1.1.', [
      { pointer: '', message: 'is not a valid HTTP/1.1 request' },
    ]),
  requestTimeout: () =>
    new HttpProblem(408, 'request-timeout', 'Request Timeout', 'The request did not arrive in time; the connection is closed.'),
  uriTooLong: (limit: number) =>
    new HttpProblem(414, 'uri-too-long', 'URI Too Long', `The request target exceeds ${limit} bytes.`),
  headersTooLarge: (limit: number) =>
    new HttpProblem(
      431,
      'request-header-fields-too-large',
      'Request Header Fields Too Large',
      `The request line and headers exceed ${limit} bytes.`,
    ),
  /** The rest of the body is read and thrown away, within bounds (linger.ts), so that the answer arrives. */
  payloadTooLarge: (limit: number) =>
    new HttpProblem(413, 'payload-too-large', 'Content Too Large', `The request body exceeds ${limit} bytes.`),
  unsupportedMediaType: () =>
    new HttpProblem(415, 'unsupported-media-type', 'Unsupported Media Type', 'The request body must be application/json.'),
  /** A sync token from before the tenant's data was replaced (`import --replace`): sync again from `changed_since=0`. */
  syncExpired: () =>
    new HttpProblem(
      410,
      'sync-expired',
      'Gone',
      'The data was replaced since this token was issued: records may have been deleted. Sync again from changed_since=0 and drop the records not read again.',
    ),
  unprocessable: (errors: readonly ParamProblem[], detail: string) =>
    new HttpProblem(422, 'unprocessable', 'Unprocessable Content', detail, errors),
  /** The cap on sandboxes (`serve --max-sandboxes`) reached: nothing was made. */
  tooManySandboxes: (max: number) =>
    new HttpProblem(409, 'too-many-sandboxes', 'Too Many Sandboxes', `There are ${max} sandboxes, as many as the server allows: delete one first. Nothing was made.`),
  /** A key past its rate limit (rateLimit.ts); `headers` are the RateLimit fields. */
  tooManyRequests: (retryAfterSeconds: number, detail: string, headers: Readonly<Record<string, string>>) =>
    new HttpProblem(429, 'too-many-requests', 'Too Many Requests', detail, undefined, {
      'Retry-After': String(retryAfterSeconds),
      ...headers,
    }),
  serviceUnavailable: (retryAfterSeconds: number, detail = 'Too many concurrent requests.') =>
    new HttpProblem(503, 'service-unavailable', 'Service Unavailable', detail, undefined, {
      'Retry-After': String(retryAfterSeconds),
    }),
  /** The database's disk is full (`StoreFull`): the write was rolled back whole. No Retry-After: space returns when an operator frees it. */
  insufficientStorage: () =>
    new HttpProblem(
      507,
      'insufficient-storage',
      'Insufficient Storage',
      'The server has no room to store this write: nothing of it was written. Reads go on; the same request succeeds once space is freed.',
    ),
  internal: () => new HttpProblem(500, 'internal', 'Internal Server Error', 'The server could not complete the request.'),
};
