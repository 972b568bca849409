import { Command } from 'commander';
import { startServer, type RunningServer, type ServerOptions } from '../http/server.js';
import { integerIn, parsePort, parsePublicUrl, parseText } from './arguments.js';
import { CommandFailure } from './errors.js';

/** What `serve` needs from its surroundings; tests pass their own. */
export interface ServeEnvironment {
  start(options: ServerOptions): Promise<RunningServer>;
  /** Calls `handler` once on the first SIGTERM or SIGINT. */
  onStopSignal(handler: (signal: NodeJS.Signals) => void): void;
  print(line: string): void;
  exit(code: number): void;
}

const processEnvironment: ServeEnvironment = {
  start: startServer,
  onStopSignal(handler) {
    const once = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', once);
      process.off('SIGINT', once);
      handler(signal);
    };
    process.on('SIGTERM', once);
    process.on('SIGINT', once);
  },
  print: (line) => process.stdout.write(`${line}\n`),
  exit: (code) => process.exit(code),
};

export function serveCommand(environment: ServeEnvironment = processEnvironment): Command {
  return new Command('serve')
    .description('serve the HTTP API over a database file')
    .requiredOption('--db <path>', 'SQLite database file', parseText)
    .option('--port <n>', 'TCP port; 0 picks a free one', parsePort, 8080)
    .option('--host <host>', 'interface to listen on', parseText, '127.0.0.1')
    .option(
      '--public-url <url>',
      'absolute http(s) URL that "next" links are built on (default: from the Host header)',
      parsePublicUrl,
    )
    .option('--trust-proxy', 'build "next" links from X-Forwarded-Proto and X-Forwarded-Host')
    .option('--max-concurrent <n>', 'requests served at once; more are answered 503', integerIn(1, 1_000_000), 64)
    .option('--body-limit <bytes>', 'largest request body; larger are answered 413', integerIn(1, 1 << 30), 1_048_576)
    .addHelpText(
      'after',
      '\nThe first line of stdout is "listening on <url>". SIGTERM or SIGINT stops accepting,\n' +
        'finishes the requests in flight and exits 0; a second signal ends the process at once.',
    )
    .action(async (options: CliServeOptions) => serve(toServerOptions(options), environment));
}

interface CliServeOptions {
  db: string;
  port: number;
  host: string;
  publicUrl?: string;
  trustProxy?: boolean;
  maxConcurrent: number;
  bodyLimit: number;
}

function toServerOptions(options: CliServeOptions): ServerOptions {
  return {
    dbPath: options.db,
    port: options.port,
    host: options.host,
    ...(options.publicUrl !== undefined && { publicUrl: options.publicUrl }),
    trustProxy: options.trustProxy === true,
    maxConcurrent: options.maxConcurrent,
    bodyLimit: options.bodyLimit,
  };
}

/** Starts the server, prints where it listens, and closes it on the first stop signal. */
export async function serve(options: ServerOptions, environment: ServeEnvironment): Promise<void> {
  let server: RunningServer;
  try {
    server = await environment.start(options);
  } catch (error) {
    const where = `${options.dbPath} on ${options.host}:${options.port}`;
    throw new CommandFailure(`cannot serve ${where}: ${(error as Error).message}`);
  }
  environment.print(`listening on ${server.url}`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => environment.onStopSignal(resolve));
  environment.print(`${signal}: closing`);
  await server.close();
  environment.exit(0);
}
