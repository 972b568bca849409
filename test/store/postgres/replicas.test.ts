import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../../src/http/logging.js';
import { openStore } from '../../../src/store/openStore.js';
import { debianServersMissing, queryOn, startReplicatedCluster, type ReplicatedCluster } from '../../support/debianServers.js';
import { fixtureFile } from '../../support/fixture.js';
import { exchange, serveDatabase, type Exchange } from '../../support/harness.js';
import { samplesOf, seriesKey } from '../../support/prometheusText.js';

/**
 * Read replicas on real servers: a PostgreSQL 15 primary and two streaming standbys of Debian's
 * (debianServers.ts), one compdata server over them. The replicas are paused and stopped by the
 * tests through PostgreSQL's own controls (`pg_wal_replay_pause()`, a fast shutdown).
 */
const missing = debianServersMissing();
const LAG_BOUND_MS = 3_000;

/** Polls `condition` until it holds or `timeoutMs` passes (a deadline, never a fixed sleep). */
async function eventually(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('read replicas (a primary and two streaming standbys)', { skip: missing, timeout: 180_000 }, () => {
  let cluster: ReplicatedCluster;
  let url: string;
  let key: string;
  let close: () => Promise<void>;
  const database = 'compdata';

  before(async () => {
    cluster = await startReplicatedCluster(2);
    await queryOn(cluster.primary.url(), `CREATE DATABASE ${database}`);
    ({ key } = await fixtureFile(cluster.primary.url(database), { tenant: 'acme', users: 6, records: 120 }));
    await cluster.caughtUp();
    const server = await serveDatabase(cluster.primary.url(database), {
      logger: createLogger('silent'),
      metrics: true,
      openServedStore: (location, options) =>
        openStore(location, {
          ...options,
          replicas: cluster.replicas.map((replica) => replica.url(database)),
          routing: { waitMs: 100, maxLagMs: LAG_BOUND_MS, checkIntervalMs: 50 },
        }),
    });
    url = server.url;
    close = () => server.close();
  });
  after(async () => {
    await close?.();
    await cluster?.remove();
  });

  const call = (method: string, path: string, options: { json?: unknown; headers?: Record<string, string> } = {}): Promise<Exchange> =>
    exchange(url, method, path, { key, ...options });
  const put = (user: number, group: string) =>
    call('PUT', '/v1/users/groups/bulk', { json: { data: [{ user: `user${user}@acme.example`, group_dimension: 'region', group, start_date: '2026-01' }] } });
  const groupsOf = (user: number, headers?: Record<string, string>) =>
    call('GET', `/v1/users/groups?user=${encodeURIComponent(`user${user}@acme.example`)}&group_dimension=region`, { headers });
  const groupIn = (answer: Exchange, month = '2026-01') =>
    (answer.body.data as { group: string; start_date: string }[]).find((row) => row.start_date === month)?.group;
  const health = async () => (await exchange(url, 'GET', '/healthz')).body as { read_servers: { name: string; in_rotation: boolean; failures: number }[] };
  const inRotation = async (name: string) => (await health()).read_servers.find((server) => server.name === name)!.in_rotation;
  const onReplica = (name: string, sql: string) => queryOn(cluster.replicas[Number(name.slice('replica-'.length)) - 1]!.url(database), sql);
  const positionIn = (servedBy: string) => BigInt(/position=(\d+)/.exec(servedBy)![1]!);

  test('both replicas join the rotation, and reads without a token are spread over them', async () => {
    await eventually(async () => (await inRotation('replica-1')) && (await inRotation('replica-2')), 10_000, 'both replicas in rotation');
    const servers = new Set<string>();
    for (let i = 0; i < 10; i += 1) servers.add((await call('GET', '/v1/reporting?limit=5')).headers.get('compdata-served-by')!.split(';')[0]!);
    assert.deepEqual([...servers].sort(), ['replica-1', 'replica-2']);
  });

  test('a write, then at once a read with its token, sees the write, whichever server serves it', async () => {
    for (let i = 0; i < 40; i += 1) {
      const group = `G${i}`;
      const written = await put(i % 6, group);
      assert.equal(written.status, 200, written.text);
      const token = written.headers.get('compdata-consistency')!;
      assert.match(token, /^\d+$/);
      const read = await groupsOf(i % 6, { 'Compdata-Consistency': token });
      assert.equal(read.status, 200);
      assert.equal(groupIn(read), group, `read ${i} (${read.headers.get('compdata-served-by')}) misses the write`);
      const servedBy = read.headers.get('compdata-served-by')!;
      if (servedBy !== 'primary') assert.ok(positionIn(servedBy) >= BigInt(token), `${servedBy} is behind ${token}`);
    }
  });

  test('with replay paused, a read without a token is served stale by a replica and says so; with the token, by the primary', async (t) => {
    for (const name of ['replica-1', 'replica-2']) await onReplica(name, 'SELECT pg_wal_replay_pause()');
    t.after(async () => {
      for (const name of ['replica-1', 'replica-2']) await onReplica(name, 'SELECT pg_wal_replay_resume()');
    });
    const before = await put(5, 'Before');
    const written = await put(5, 'After');
    const token = written.headers.get('compdata-consistency')!;
    const stale = await groupsOf(5);
    const servedBy = stale.headers.get('compdata-served-by')!;
    assert.match(servedBy, /^replica-\d;position=\d+$/);
    assert.ok(positionIn(servedBy) < BigInt(token), 'the replica says it had not replayed the write');
    assert.notEqual(groupIn(stale), 'After');
    const fresh = await groupsOf(5, { 'Compdata-Consistency': token });
    assert.equal(fresh.headers.get('compdata-served-by'), 'primary');
    assert.equal(groupIn(fresh), 'After');
    assert.equal(before.status, 200);
  });

  test('a key created a moment ago, which no replica has replayed yet, is taken at once (checked on the primary)', async (t) => {
    for (const name of ['replica-1', 'replica-2']) await onReplica(name, 'SELECT pg_wal_replay_pause()');
    t.after(async () => {
      for (const name of ['replica-1', 'replica-2']) await onReplica(name, 'SELECT pg_wal_replay_resume()');
    });
    const store = await openStore(cluster.primary.url(database), { role: 'command' });
    const created = await store.createKey('acme').finally(() => store.close());
    const read = await exchange(url, 'GET', '/v1/reporting?limit=1', { key: created.key });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.headers.get('compdata-served-by'), 'primary');
  });

  test('a replica paused past the lag bound leaves the rotation and comes back once it catches up', async () => {
    await eventually(async () => (await inRotation('replica-1')) && (await inRotation('replica-2')), 10_000, 'both replicas back in rotation');
    await onReplica('replica-2', 'SELECT pg_wal_replay_pause()');
    try {
      const written = await put(4, 'Paused');
      assert.equal(written.status, 200);
      await eventually(async () => !(await inRotation('replica-2')), LAG_BOUND_MS * 10, 'replica-2 out of rotation');
      for (let i = 0; i < 6; i += 1) assert.notEqual((await call('GET', '/v1/reporting?limit=2')).headers.get('compdata-served-by')?.split(';')[0], 'replica-2');
      const metrics = (await health()).read_servers.find((server) => server.name === 'replica-2') as unknown as { reason: string };
      assert.match(metrics.reason, /past the bound/);
    } finally {
      await onReplica('replica-2', 'SELECT pg_wal_replay_resume()');
    }
    await eventually(() => inRotation('replica-2'), 10_000, 'replica-2 back in rotation');
  });

  test('a replica stopped and started under load: every request is answered (never a 500), the replica leaves and rejoins', async () => {
    await eventually(async () => (await inRotation('replica-1')) && (await inRotation('replica-2')), 10_000, 'both replicas in rotation');
    const statuses = new Map<number, number>();
    let loading = true;
    const load = (async () => {
      for (let i = 0; loading; i += 1) {
        const answers = await Promise.all([call('GET', '/v1/reporting?limit=20'), groupsOf(i % 6), put(i % 6, `L${i % 3}`)]);
        for (const answer of answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      }
    })();
    try {
      await cluster.replicas[0]!.stop();
      await eventually(async () => !(await inRotation('replica-1')), 10_000, 'replica-1 out of rotation');
      await cluster.replicas[0]!.start();
      await eventually(() => inRotation('replica-1'), 15_000, 'replica-1 back in rotation');
    } finally {
      loading = false;
      await load;
    }
    assert.deepEqual([...statuses.keys()], [200], `statuses seen: ${JSON.stringify([...statuses])}`);
    const samples = samplesOf((await exchange(url, 'GET', '/metrics')).text);
    const figure = (name: string, server: string) => samples.get(seriesKey(name, { server }));
    assert.ok(figure('compdata_read_server_removals_total', 'replica-1')! >= 1, 'the stop is counted');
    assert.equal(figure('compdata_read_server_in_rotation', 'replica-1'), 1);
    for (const server of ['primary', 'replica-1', 'replica-2']) assert.ok(figure('compdata_read_server_reads_total', server)! > 0, `${server} served reads`);
  });

  test('a sync walk through writes while the replicas lag never skips a change, and ETags never answer 304 for changed data', async (t) => {
    await eventually(async () => (await inRotation('replica-1')) && (await inRotation('replica-2')), 10_000, 'both replicas in rotation');
    // A walk to the end, then a token from the primary (a read with the latest write's token).
    const first = await put(0, 'S0');
    let answer = await call('GET', '/v1/reporting?changed_since=0&limit=2000', { headers: { 'Compdata-Consistency': first.headers.get('compdata-consistency')! } });
    assert.equal(answer.status, 200);
    let syncToken = answer.body.sync_token as string;
    const staleEtag = (await call('GET', '/v1/reporting?limit=3')).headers.get('etag')!;

    for (const name of ['replica-1', 'replica-2']) await onReplica(name, 'SELECT pg_wal_replay_pause()');
    t.after(async () => {
      for (const name of ['replica-1', 'replica-2']) await onReplica(name, 'SELECT pg_wal_replay_resume()');
    });
    // user0's records change with each write of its region (their dimension fields).
    const written = await put(0, 'S1');
    const token = written.headers.get('compdata-consistency')!;
    answer = await call('GET', `/v1/reporting?changed_since=${syncToken}&limit=2000`, { headers: { 'Compdata-Consistency': token } });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('compdata-served-by'), 'primary');
    assert.ok(answer.body.count > 0, 'the write changed records');
    syncToken = answer.body.sync_token as string;

    // The next write, then the token the primary issued read without a consistency token: the
    // replicas have not replayed the changes before it, so the primary answers (never a 400, never a skip).
    await put(0, 'S2');
    answer = await call('GET', `/v1/reporting?changed_since=${syncToken}&limit=2000`);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers.get('compdata-served-by'), 'primary');
    assert.ok((answer.body.data as { region: string[] }[]).some((record) => record.region[0] === 'S2'), `the change of S2 is in the walk: ${answer.text.slice(0, 600)}`);

    // An ETag of the replicas' (old) data never gets a 304 where the data changed.
    const conditional = await call('GET', '/v1/reporting?limit=3', { headers: { 'If-None-Match': staleEtag, 'Compdata-Consistency': token } });
    assert.equal(conditional.status, 200);
  });
});
