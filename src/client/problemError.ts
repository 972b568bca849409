import type { components } from '../../generated/api.js';

type Problem = components['schemas']['Problem'];
/** One pointed-at part of the request: `pointer` is a JSON Pointer (`/data/17/start_date`, `/query/limit`). */
export type ProblemFieldError = components['schemas']['ValidationProblem']['errors'][number];

/**
 * A non-2xx answer, thrown by every client method: the `application/problem+json` body
 * (RFC 9457) the server sends, with the answer's `X-Request-Id` (quote it when asking the
 * operator: it names the request in the server's logs).
 *
 * An answer that is not a problem document (say, a proxy's HTML error page) becomes a problem
 * of type `about:blank` whose `title` is the HTTP status text and whose `detail` is the start of
 * the body, so callers handle one kind of error.
 */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  /** HTTP status of the answer. */
  readonly status: number;
  /** `urn:compdata:problem:<code>` from this server; `about:blank` for an answer without a problem body. */
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  /** The parts of the request that are wrong (400 and 422); empty otherwise. */
  readonly errors: readonly ProblemFieldError[];
  /** The answer's `X-Request-Id`, when it had one. */
  readonly requestId: string | undefined;

  constructor(problem: Problem & { errors?: ProblemFieldError[] }, requestId?: string) {
    const errors = problem.errors ?? [];
    const pointed = errors.map((error) => `${error.pointer}: ${error.message}`).join('; ');
    super(
      `${problem.status} ${problem.title}: ${problem.detail}${pointed ? ` (${pointed})` : ''}` +
        (requestId ? ` [request ${requestId}]` : ''),
    );
    this.status = problem.status;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.errors = errors;
    this.requestId = requestId;
  }

  /** The error for an answer openapi-fetch did not return as data: `body` is its parsed JSON or its text. */
  static fromAnswer(body: unknown, response: Response): ProblemError {
    const requestId = response.headers.get('X-Request-Id') ?? undefined;
    if (isProblem(body)) return new ProblemError(body, requestId);
    const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
    return new ProblemError(
      {
        type: 'about:blank',
        title: response.statusText || (response.ok ? 'Unexpected empty answer' : `HTTP ${response.status}`),
        status: response.status,
        detail: text.length > 500 ? `${text.slice(0, 500)}…` : text,
      },
      requestId,
    );
  }
}

/** What openapi-fetch answers for one operation (the shape of its `FetchResponse`). */
export interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a success, or the answer thrown as a `ProblemError`. */
export function dataOf<T>({ data, error, response }: Answer<T>): T {
  if (!response.ok || data === undefined) throw ProblemError.fromAnswer(error, response);
  return data;
}

function isProblem(body: unknown): body is Problem & { errors?: ProblemFieldError[] } {
  if (typeof body !== 'object' || body === null) return false;
  const { type, title, status, detail, errors } = body as Record<string, unknown>;
  return (
    typeof type === 'string' &&
    typeof title === 'string' &&
    typeof status === 'number' &&
    typeof detail === 'string' &&
    (errors === undefined || (Array.isArray(errors) && errors.every(isFieldError)))
  );
}

function isFieldError(error: unknown): error is ProblemFieldError {
  return typeof error === 'object' && error !== null && typeof (error as ProblemFieldError).pointer === 'string' && typeof (error as ProblemFieldError).message === 'string';
}
