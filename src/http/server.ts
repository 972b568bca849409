import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startCheckpointer } from '../store/checkpointer.js';
import { openDatabase } from '../store/db.js';
import { keyAuthenticator } from '../store/keys.js';
import { pagedReads } from '../store/pagedReads.js';
import { createApi } from './api.js';
import { createApp } from './app.js';
import { loadDocument } from './document.js';
import { readJsonBody } from './jsonBody.js';

export interface ServerOptions {
  dbPath: string;
  port: number;
  host: string;
  /** Base of every `next` URL; without it, the request's Host header is used. */
  publicUrl?: string;
  /** Honour X-Forwarded-Proto / X-Forwarded-Host when building `next`. */
  trustProxy?: boolean;
  /** Most concurrent requests before 503 (default 64). */
  maxConcurrent?: number;
  /** Largest request body in bytes before 413 (default 1 MiB). */
  bodyLimit?: number;
  /** How long a request waits for another process's write lock before a 503 (default 5000 ms). */
  busyTimeoutMs?: number;
  /** Where unexpected errors go (default: one line on stderr). */
  logError?: (error: unknown) => void;
}

export interface RunningServer {
  /** `http://host:port` it listens on. */
  url: string;
  /** Stops accepting, finishes in-flight requests, closes the database. */
  close(): Promise<void>;
}

export const DEFAULTS = { maxConcurrent: 64, bodyLimit: 1024 * 1024, shutdownGraceMs: 10_000 } as const;

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const db = openDatabase(options.dbPath, { busyTimeoutMs: options.busyTimeoutMs });
  const document = loadDocument();
  const logError = options.logError ?? defaultLogError;
  const bodyLimit = options.bodyLimit ?? DEFAULTS.bodyLimit;
  const api = await createApi({
    definition: document.definition,
    deps: {
      db,
      reads: pagedReads(db),
      publicBase: { publicUrl: options.publicUrl?.replace(/\/+$/, ''), trustProxy: options.trustProxy ?? false },
      documentJson: document.json,
    },
    authenticate: keyAuthenticator(db),
    readBody: (ctx) => readJsonBody(ctx, bodyLimit),
  });
  const app = createApp(api, { maxConcurrent: options.maxConcurrent ?? DEFAULTS.maxConcurrent }, logError);
  const server = createServer(app.callback());
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  const checkpointer = startCheckpointer(db, logError);
  const closeDatabase = async () => {
    await checkpointer.stop();
    db.close();
  };
  return { url: `http://${host}:${port}`, close: () => shutDown(server, closeDatabase) };
}

/** Stops accepting, lets in-flight responses finish (bounded), then closes the database. */
async function shutDown(server: Server, closeDatabase: () => Promise<void>): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), DEFAULTS.shutdownGraceMs);
  await closed;
  clearTimeout(timer);
  await closeDatabase();
}

function defaultLogError(error: unknown): void {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`compdata: unexpected error: ${message}\n`);
}
