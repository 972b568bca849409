/** Placeholder: the HTTP server is being written; this signature is the contract for the CLI. */
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
}

export interface RunningServer {
  /** `http://host:port` it listens on. */
  url: string;
  /** Stops accepting, finishes in-flight requests, closes the database. */
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  throw new Error(`not yet: ${options.dbPath}`);
}
