import { OpenAPIRouter, type Document, type Operation, type ParsedRequest, type Request } from 'openapi-backend';

interface ParsedFor {
  operation: Operation;
  body: unknown;
  parsed: ParsedRequest;
}

/**
 * openapi-backend's router (`openapi-backend/router.js`, 5.x) without the work it repeats on
 * every request. The document does not change after start-up, yet the stock router rebuilds the
 * whole operation list with lodash on each `getOperations()` (twice per routed request), and
 * `handleRequest` parses the same request three times (before routing, after routing, and again
 * inside `validateRequest`: query string through qs, headers, cookies, path parameters).
 * This subclass keeps the library's behaviour and answers:
 *
 * - `getOperations()` / `getOperation(id)`: the list, built once.
 * - `matchOperation`: a path written literally in the document with its method is found in a
 *   map; everything else (path templates, 404, 405) goes through the library's own matching.
 * - `parseRequest(req)` without an operation: parsed only if something reads it. `handleRequest`
 *   replaces it as soon as the operation is known; only a pre-routing hook would read it.
 * - `parseRequest(req, operation)`: parsed once per request, operation and body (the body is
 *   put on the request after the key is accepted, between the two calls that would share it).
 *   Callers after the first get their own `params`, `query`, `headers` and `cookies` objects,
 *   since request validation coerces those in place.
 *
 * `bench/`'s `reporting-count` scenario (a request that does almost nothing else) measures it.
 */
export class ContractRouter<D extends Document = Document> extends OpenAPIRouter<D> {
  readonly #operations: Operation<D>[];
  readonly #byId: Map<string, Operation<D>>;
  /** Operations whose path has no template, by `method path`. */
  readonly #literal: Map<string, Operation<D>>;
  readonly #parsed = new WeakMap<Request, ParsedFor>();

  constructor(opts: { definition: D; apiRoot?: string; ignoreTrailingSlashes?: boolean }) {
    super(opts);
    this.#operations = super.getOperations();
    this.#byId = new Map(this.#operations.flatMap((op) => (op.operationId ? [[op.operationId, op] as const] : [])));
    this.#literal = new Map(this.#operations.filter((op) => !op.path.includes('{')).map((op) => [`${op.method} ${op.path}`, op]));
  }

  override getOperations(): Operation<D>[] {
    return this.#operations;
  }

  override getOperation(operationId: string): Operation<D> | undefined {
    return this.#byId.get(operationId);
  }

  override matchOperation(req: Request): Operation<D> | undefined;
  override matchOperation(req: Request, strict: boolean): Operation<D>;
  override matchOperation(req: Request, strict?: boolean): Operation<D> | undefined {
    const { method, path } = this.normalizeRequest(req);
    // Under the root `/`, every normalised path is an API path (another root: the library decides).
    const literal = this.apiRoot === '/' ? this.#literal.get(`${method} ${this.normalizePath(path)}`) : undefined;
    return literal ?? super.matchOperation(req, strict ?? false);
  }

  override parseRequest(req: Request, operation?: Operation<D>): ParsedRequest {
    if (!operation) return new LazilyParsed(() => super.parseRequest(req));
    const memo = this.#parsed.get(req);
    if (memo?.operation !== operation || memo.body !== req.body) {
      const parsed = super.parseRequest(req, operation);
      this.#parsed.set(req, { operation, body: req.body, parsed });
      return parsed;
    }
    const { parsed } = memo;
    return { ...parsed, params: copy(parsed.params), query: copy(parsed.query), headers: copy(parsed.headers), cookies: copy(parsed.cookies) };
  }
}

/** A shallow copy that keeps the prototype (the cookie parser's objects have none). */
function copy<T extends object>(value: T): T {
  return Object.assign(Object.create(Object.getPrototypeOf(value) as object | null) as T, value);
}

/** A parsed request whose fields are computed on first read. */
class LazilyParsed implements ParsedRequest {
  #parse: () => ParsedRequest;
  #parsed: ParsedRequest | undefined;
  constructor(parse: () => ParsedRequest) {
    this.#parse = parse;
  }
  get #value(): ParsedRequest {
    return (this.#parsed ??= this.#parse());
  }
  get method() { return this.#value.method; }
  get path() { return this.#value.path; }
  get requestBody() { return this.#value.requestBody; }
  get params() { return this.#value.params; }
  get query() { return this.#value.query; }
  get headers() { return this.#value.headers; }
  get cookies() { return this.#value.cookies; }
  get body() { return this.#value.body; }
}
