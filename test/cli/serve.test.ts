import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';
import type { ServerOptions } from '../../src/http/server.js';
import { CommandFailure } from '../../src/cli/errors.js';
import { serve, serveCommand, type ServeEnvironment } from '../../src/cli/serve.js';
import { runCli, startCli, temporaryDirectory } from './cliProcess.js';

/**
 * An environment that records what `serve` does in `events`; its server records the options
 * it was started with in `received`. `stop` sends the stop signal.
 */
function fakeEnvironment(startFailure?: Error) {
  const events: string[] = [];
  const received: ServerOptions[] = [];
  let stop: (signal: NodeJS.Signals) => void = () => assert.fail('no signal handler');
  const environment: ServeEnvironment = {
    start: async (options) => {
      if (startFailure) throw startFailure;
      received.push(options);
      return { url: 'http://127.0.0.1:41234', close: async () => void events.push('close') };
    },
    onStopSignal: (handler) => {
      stop = handler;
    },
    print: (line) => events.push(`print ${line}`),
    exit: (code) => events.push(`exit ${code}`),
  };
  return { environment, events, received, stop: (signal: NodeJS.Signals) => stop(signal) };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('compdata serve', () => {
  test('prints where it listens first, closes on the stop signal, then exits 0', async () => {
    const fake = fakeEnvironment();
    const serving = serve({ dbPath: 'x.db', port: 0, host: '127.0.0.1' }, fake.environment);
    await nextTurn();
    assert.deepEqual(fake.events, ['print listening on http://127.0.0.1:41234']);
    fake.stop('SIGTERM');
    await serving;
    assert.deepEqual(fake.events.slice(1), ['print SIGTERM: closing', 'close', 'exit 0']);
  });

  test('a server that cannot start is a CommandFailure (exit 1)', async () => {
    const fake = fakeEnvironment(new Error('listen EADDRINUSE'));
    await assert.rejects(serve({ dbPath: 'x.db', port: 80, host: 'h' }, fake.environment), (error: Error) => {
      assert.ok(error instanceof CommandFailure);
      assert.match(error.message, /EADDRINUSE/);
      return true;
    });
    assert.deepEqual(fake.events, []);
  });

  const optionCases: [string, { args: string[]; want: ServerOptions }][] = [
    [
      'defaults',
      {
        args: ['--db', 'a.db'],
        want: { dbPath: 'a.db', port: 8080, host: '127.0.0.1', trustProxy: false, maxConcurrent: 64, bodyLimit: 1_048_576 },
      },
    ],
    [
      'every option',
      {
        args: ['--db', 'b.db', '--port', '0', '--host', '0.0.0.0', '--public-url', 'https://api.example.com/compdata/',
          '--trust-proxy', '--max-concurrent', '8', '--body-limit', '2048'],
        want: {
          dbPath: 'b.db', port: 0, host: '0.0.0.0', publicUrl: 'https://api.example.com/compdata', trustProxy: true,
          maxConcurrent: 8, bodyLimit: 2048,
        },
      },
    ],
  ];
  for (const [name, { args, want }] of optionCases) {
    test(`passes the options to the server: ${name}`, async () => {
      const fake = fakeEnvironment();
      const parsing = serveCommand(fake.environment).parseAsync(args, { from: 'user' });
      await nextTurn();
      fake.stop('SIGINT');
      await parsing;
      assert.deepEqual(fake.received, [want]);
    });
  }
});

describe('compdata serve, as a process', { concurrency: true }, () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`listens on a free port with --port 0 and exits 0 on ${signal}`, async (t) => {
      const path = join(temporaryDirectory(t), 'serve.db');
      const child = startCli(['serve', '--db', path, '--port', '0']);
      const exited = once(child, 'exit');
      const [firstLine] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const url = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(firstLine);
      assert.ok(url, firstLine);
      assert.notEqual(Number(url[2]), 0);
      const response = await fetch(`${url[1]}/v1/reporting`);
      assert.equal(response.status, 401);
      child.kill(signal);
      const [code] = await exited;
      assert.equal(code, 0);
    });
  }

  test('a port in use is one line on stderr and exit 1', async (t) => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    t.after(() => blocker.close());
    const port = (blocker.address() as { port: number }).port;
    const path = join(temporaryDirectory(t), 'busy.db');
    const result = await runCli(['serve', '--db', path, '--port', String(port)]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^error: cannot serve [^\n]*EADDRINUSE[^\n]*\n$/);
  });
});
