import { OpenAPIRouter, type Document, type Operation, type ParsedRequest, type Request } from 'openapi-backend';

interface ParsedFor {
  operation: Operation;
  body: unknown;
  parsed: ParsedRequest;
}

/**
 * openapi-backend's router without the work its 5.x `openapi-backend/router.js` and `handleRequest` repeat on
 * every request, which openapi-backend offers no option to avoid. `bench/`'s `reporting-count`
 * scenario (a request that does almost nothing else) measures it. Two overrides:
 *
 * - `getOperations()` / `getOperation(id)`: the list, built once. The stock router rebuilds the
 *   whole list from the document with lodash on each call, once
 *   per routed request on a literal path and twice on a templated one. Relies on: the document
 *   does not change after start-up, and no caller changes the list or its operations.
 * - `matchOperation`: on a path that is no operation's literal path (a templated one, such as
 *   `/v2/reporting/{table_id}/statements`), the stock router compiles a RegExp of every
 *   operation's path and sorts the matches with lodash, on every request (`make bench-profile
 *   SCENARIO=v2-deep-small` shows its cost). Here the
 *   patterns are compiled and ordered once; the match, its order (most literal characters
 *   first, then the document's order) and the 404 and 405 errors are the stock router's.
 * - `parseRequest`: `handleRequest` parses the same request three times (before routing, after
 *   routing, and again inside `validateRequest`: query string through qs, headers, cookies,
 *   path parameters). Here the parse without an operation is done only if something reads it
 *   (only a pre-routing hook would: there is none); the parse with the operation is done once
 *   per request, operation and body (the body is put on the request after the key is accepted,
 *   between the two calls that would share it), and callers after the first get their own
 *   `params`, `query`, `headers` and `cookies` objects, since request validation coerces those
 *   in place. Relies on: `handleRequest` calling `parseRequest` in
 *   that order on the request it was given, which nothing changes between the calls but its
 *   body.
 *
 * Both rely on openapi-backend's internals, so its version is pinned exactly in package.json;
 * test/http/contractRouter.test.ts fails when an upgrade changes what they rely on.
 */
export class ContractRouter<D extends Document = Document> extends OpenAPIRouter<D> {
  readonly #operations: Operation<D>[];
  readonly #byId: Map<string, Operation<D>>;
  readonly #parsed = new WeakMap<Request, ParsedFor>();
  /** Every operation with its path as a pattern, the most literal characters first (a stable sort keeps the document's order). */
  readonly #patterns: { operation: Operation<D>; pattern: RegExp }[];

  constructor(opts: { definition: D; apiRoot?: string; ignoreTrailingSlashes?: boolean }) {
    super(opts);
    this.#operations = super.getOperations();
    this.#byId = new Map(this.#operations.flatMap((op) => (op.operationId ? [[op.operationId, op] as const] : [])));
    const literalLength = (path: string) => path.replace(/\{.*?\}/g, '').length;
    this.#patterns = this.#operations
      .map((operation) => ({ operation, pattern: new RegExp(pathPattern(operation.path)) }))
      .sort((a, b) => literalLength(b.operation.path) - literalLength(a.operation.path));
  }

  override matchOperation(req: Request): Operation<D> | undefined;
  override matchOperation(req: Request, strict: boolean): Operation<D>;
  override matchOperation(req: Request, strict?: boolean): Operation<D> | undefined {
    const { path, method } = this.normalizeRequest(req);
    if (!this.#isUnderApiRoot(path)) return unmatched(strict, '404-notFound: no route matches request');
    const relative = this.normalizePath(path);
    const exact = this.#operations.find((op) => op.path === relative && op.method === method);
    if (exact) return exact;
    const matching = this.#patterns.filter(({ pattern }) => pattern.test(relative));
    if (matching.length === 0) return unmatched(strict, '404-notFound: no route matches request');
    return matching.find(({ operation }) => operation.method === method)?.operation ?? unmatched(strict, '405-methodNotAllowed: this method is not registered for the route');
  }

  /** The stock router's (private) test: the path is the API root or under it, on a segment boundary. */
  #isUnderApiRoot(path: string): boolean {
    if (this.apiRoot === '/') return path.startsWith('/');
    const root = this.apiRoot.replace(/\/$/, '');
    return path === root || path.startsWith(`${root}/`);
  }

  override getOperations(): Operation<D>[] {
    return this.#operations;
  }

  override getOperation(operationId: string): Operation<D> | undefined {
    return this.#byId.get(operationId);
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
    // openapi-backend types these fields `any`; each is an object of the parsed request.
    const fields = parsed as Record<'params' | 'query' | 'headers' | 'cookies', object>;
    return { ...parsed, params: copy(fields.params), query: copy(fields.query), headers: copy(fields.headers), cookies: copy(fields.cookies) };
  }
}

/** A path template as the stock router matches it: each `{name}` one segment or more of it, the rest literal. */
function pathPattern(path: string): string {
  const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `^${path.replace(/\{[^}]+\}/g, '\0').split('\0').map(literal).join('[^/]+')}$`;
}

/** No operation: `undefined`, or in strict mode the stock router's error. */
function unmatched(strict: boolean | undefined, message: string): undefined {
  if (strict) throw Error(message);
  return undefined;
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
  get method(): string { return this.#value.method; }
  get path(): string { return this.#value.path; }
  get requestBody(): unknown { return this.#value.requestBody as unknown; }
  get params(): Record<string, unknown> { return this.#value.params as Record<string, unknown>; }
  get query(): Record<string, unknown> { return this.#value.query as Record<string, unknown>; }
  get headers(): Record<string, unknown> { return this.#value.headers as Record<string, unknown>; }
  get cookies(): Record<string, unknown> { return this.#value.cookies as Record<string, unknown>; }
  get body(): unknown { return this.#value.body as unknown; }
}
