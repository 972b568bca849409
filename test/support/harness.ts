import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { createLogger } from '../../src/http/logging.js';
import { startServer, type ServerOptions } from '../../src/http/server.js';
import { openStore } from '../../src/store/openStore.js';
import { openDatabase, type Db } from '../../src/store/sqlite/db.js';
import type { Store } from '../../src/store/store.js';
import { assertConforms } from './contract.js';

export interface Exchange {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined for HEAD and empty bodies). */
  body: any;
}

export interface CallOptions {
  key?: string;
  /** A JSON value (sent as application/json) or raw text (sent as is). */
  json?: unknown;
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** Send the body with Transfer-Encoding: chunked (in two chunks) instead of Content-Length. */
  chunked?: boolean;
}

export interface TestServer {
  url: string;
  dbPath: string;
  /** The store over the same database, as the CLI opens it: for setting up data. */
  store: Store;
  /** A SQLite connection to the same file, for looking inside and for holding locks. */
  db: Db;
  /** One HTTP exchange; the response is checked against the contract before it is returned. */
  call(method: string, path: string, options?: CallOptions): Promise<Exchange>;
  close(): Promise<void>;
}

export interface TempDatabase {
  dbPath: string;
  /** The store over the file, as a CLI command opens it. */
  store: Store;
  /** A SQLite connection to the file, for looking inside. */
  db: Db;
  beforeRemoval(close: () => Promise<void>): void;
}

/**
 * A fresh database file in a temp dir; removed when the test ends, after whatever was passed
 * to `beforeRemoval` (servers over the file) has finished.
 */
export function tempDatabase(t: TestContext): TempDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'compdata-test-'));
  const dbPath = join(dir, 'compdata.db');
  const store = openStore(dbPath, { role: 'command' });
  const db = openDatabase(dbPath);
  const closers: (() => Promise<void>)[] = [];
  t.after(async () => {
    for (const close of closers.reverse()) await close();
    await store.close();
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dbPath, store, db, beforeRemoval: (close) => void closers.push(close) };
}

/** Runs `work` on a store of its own over `dbPath` (another connection, as another process would have). */
export async function withOtherStore<T>(dbPath: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(dbPath, { role: 'command', mustExist: true });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/**
 * A real server on port 0 over a real database file. `prepare` runs on the database before the
 * server starts (for data the test needs).
 */
export async function startTestServer(
  t: TestContext,
  options: Partial<ServerOptions> = {},
  prepare?: (store: Store) => Promise<unknown>,
): Promise<TestServer> {
  const { dbPath, store, db, beforeRemoval } = tempDatabase(t);
  await prepare?.(store);
  // Only warnings and errors, on stderr: a request line per call would drown the test output.
  const logger = createLogger('warn', process.stderr);
  const server = await startServer({ db: dbPath, port: 0, host: '127.0.0.1', logger, ...options });
  let closed = false;
  const close = async () => {
    if (!closed) await server.close();
    closed = true;
  };
  beforeRemoval(close);
  return { url: server.url, dbPath, store, db, close, call: (method, path, callOptions) => exchange(server.url, method, path, callOptions) };
}

/**
 * One exchange over node:http (not fetch, which may not set Host or send odd requests).
 * Every response is checked against the contract before it is returned.
 */
export async function exchange(base: string, method: string, path: string, options: CallOptions = {}): Promise<Exchange> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers['X-API-Key'] = options.key;
  let body: string | Buffer | undefined = options.raw;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['Content-Type'] ??= 'application/json';
  }
  // Framed explicitly: node's client sends a GET's body with neither header (garbage on the wire).
  if (body !== undefined && options.chunked) headers['Transfer-Encoding'] = 'chunked';
  else if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body));
  const { status, headers: responseHeaders, text } = await new Promise<{ status: number; headers: Headers; text: string }>(
    (resolve, reject) => {
      // The path goes out as given: no URL parsing that would resolve dot segments or re-encode.
      const { hostname, port } = new URL(base);
      const request = httpRequest({ hostname, port, path, method, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const received = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) received.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          resolve({ status: response.statusCode!, headers: received, text: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('error', reject);
      });
      request.on('error', reject);
      if (options.chunked && body !== undefined && body.length > 1) {
        const half = Math.floor(body.length / 2);
        request.write(body.slice(0, half));
        request.end(body.slice(half));
      } else {
        request.end(body);
      }
    },
  );
  const parsed = assertConforms(method, path.split('?')[0]!, status, responseHeaders, text);
  return { status, headers: responseHeaders, text, body: parsed };
}
