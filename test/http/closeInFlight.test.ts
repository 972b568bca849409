import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openStore, type OpenStoreOptions } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/store.js';
import { StoreUnavailable } from '../../src/store/vocabulary/storeErrors.js';
import { buildFixture } from '../support/fixture.js';
import { exchange, serveDatabase, tempDatabase, type Scope, type TestServerOptions } from '../support/harness.js';
import { captureLogs } from '../support/logCapture.js';
import { openSocket } from '../support/rawHttp.js';
import { until } from '../support/until.js';

/**
 * A server stopping while a request is still at work (`compdata serve` on SIGTERM: the server
 * closes, then the store). Its page read is made slow by a store around the real one, which
 * notes when the read begins and ends and when the store is closed.
 */
interface SlowStore {
  events: string[];
  readStarted: () => boolean;
  /** Settles when the slow read has ended, well or not. */
  readSettled: Promise<void>;
  /** What the read threw, if it did. */
  failure?: unknown;
}

/** The server's store, whose `page` waits for `slow` (given a promise of the store closed) before it reads. */
function slowPages(slow: (closed: Promise<void>) => Promise<void>): { open: TestServerOptions['openServedStore']; seen: SlowStore } {
  const events: string[] = [];
  let settle!: () => void;
  const readSettled = new Promise<void>((resolve) => (settle = resolve));
  let closedNow!: () => void;
  const closed = new Promise<void>((resolve) => (closedNow = resolve));
  const open = async (database: string, options: OpenStoreOptions): Promise<Store> => {
    const store = await openStore(database, options);
    return {
      ...store,
      page: async (...args) => {
        events.push('read started');
        try {
          await slow(closed);
          return await store.page(...args);
        } catch (error) {
          seen.failure = error;
          throw error;
        } finally {
          events.push('read ended');
          settle();
        }
      },
      close: async () => {
        events.push('store closed');
        await store.close();
        closedNow();
      },
    };
  };
  const seen: SlowStore = { events, readStarted: () => events.includes('read started'), readSettled };
  return { open, seen };
}

async function serveSlowly(t: Scope, slow: (closed: Promise<void>) => Promise<void>, options: TestServerOptions = {}) {
  const { database, store } = await tempDatabase(t);
  const { key } = await buildFixture(store, { tenant: 'acme', records: 5 });
  const logs = captureLogs('warn');
  const { open, seen } = slowPages(slow);
  const server = await serveDatabase(database, { logger: logs.logger, openServedStore: open, ...options });
  const unexpected = () => logs.entries().filter((entry) => entry.level === 'error' || /unexpected/i.test(String(entry.msg)));
  return { server, key, seen, unexpected };
}

/** A request whose client goes away once its read has begun. */
async function requestThenLeave(url: string, key: string, seen: SlowStore): Promise<void> {
  const socket = await openSocket(url);
  socket.write(`GET /v1/reporting?limit=2 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`);
  await until('the read has begun', seen.readStarted);
  socket.destroy();
}

/** How long the read of a request whose client went away lasts at most (until the store closes, else). */
const LONGEST_READ_MS = 1000;

/** A gate the slow read waits at, opened once the server's close has begun: the read is then surely in flight. */
function closeGate(): { wait: () => Promise<void>; closeServer: (server: { close(): Promise<void> }) => Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    wait: () => opened,
    closeServer: (server) => {
      const closing = server.close();
      open();
      return closing;
    },
  };
}

test('a request still at work when the server closes gets its whole answer before the store closes', async (t) => {
  const gate = closeGate();
  const { server, key, seen, unexpected } = await serveSlowly(t, gate.wait);
  const answer = exchange(server.url, 'GET', '/v1/reporting?limit=2', { key });
  await until('the read has begun', seen.readStarted);
  await gate.closeServer(server);
  const { status, body } = await answer;
  assert.equal(status, 200);
  assert.equal(body.count, 2);
  assert.deepEqual(seen.events, ['read started', 'read ended', 'store closed']);
  assert.deepEqual(unexpected(), []);
});

test('a request whose client went away is still finished before the store closes, and nothing is logged as unexpected', async (t) => {
  // The read lasts until the store is closed, a second at most: a server that waits for it never
  // closes the store first, whatever the machine's load; one that does not, closes it at once.
  const { server, key, seen, unexpected } = await serveSlowly(t, (closed) => Promise.race([closed, sleep(LONGEST_READ_MS)]));
  await requestThenLeave(server.url, key, seen);
  await server.close();
  await seen.readSettled;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen.events, ['read started', 'read ended', 'store closed'], 'the store closed only once the request was done');
  assert.deepEqual(unexpected(), []);
});

test('a request still at work past the shutdown timeout finds the store closed: a 503 to retry (StoreUnavailable), nothing logged as unexpected', async (t) => {
  // The read goes on only once the store is closed: it outlives the shutdown timeout.
  const { server, key, seen, unexpected } = await serveSlowly(t, (closed) => closed, { shutdownTimeoutMs: 200 });
  await requestThenLeave(server.url, key, seen);
  await server.close();
  await seen.readSettled;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen.events, ['read started', 'store closed', 'read ended']);
  assert.ok(seen.failure instanceof StoreUnavailable, `the read failed as the store's own 503: ${String(seen.failure)}`);
  assert.ok(seen.failure.retryAfterSeconds >= 1, 'answered with Retry-After');
  assert.deepEqual(unexpected(), []);
});
