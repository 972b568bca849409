import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ADMIN_TOKEN, deliveringServer, endpointOf, sendToPayroll, validatedSandbox } from '../support/deliveringSandbox.js';
import type { TestServer } from '../support/harness.js';
import { until } from '../support/until.js';
import { startReceiver } from '../support/webhookReceiver.js';

const calls = '/admin/v1/tenants/sb/webhook-calls';
type Json = Record<string, any>;

const get = async (server: TestServer, path: string) => {
  const answer = await server.call('GET', path, { bearer: ADMIN_TOKEN });
  assert.equal(answer.status, 200, answer.text);
  return answer.body;
};
const listed = async (server: TestServer, query = '') => (await get(server, `${calls}${query}`)).data as Json[];
/** Every page from `query` on, following `next`: the calls in the order listed, and the pages' sizes. */
async function allPages(server: TestServer, query: string): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  let next: string | undefined = `${calls}${query}`;
  while (next !== undefined) {
    const page: Json = await get(server, next.replace(server.url, ''));
    assert.equal(page.count, page.data.length);
    ids.push(...page.data.map((call: Json) => call.id));
    sizes.push(page.count);
    next = page.next;
  }
  return { ids, sizes };
}
const states = async (server: TestServer) => (await listed(server)).map((call) => `${call.state} ${call.attempts}`).sort().join();

describe('the log of webhook calls', () => {
  test('every attempt of a call with its time, duration, status or error, the head of the answer and the body sent [conf:webhook-log]', async (t) => {
    const server = await deliveringServer(t, { timeoutMs: 300 });
    // /failing: 500 twice, then 200; /silent: no answer in time once, then 202.
    const receiver = await startReceiver(t, (call) => {
      const before = receiver.calls.filter((one) => one.path === call.path).length - 1;
      if (call.path.endsWith('/failing')) return before < 2 ? 500 : 200;
      return before < 1 ? 'hold' : 202;
    });
    const changes = await validatedSandbox(server);
    const failing = await endpointOf(server, `${receiver.url}/failing`);
    const silent = await endpointOf(server, `${receiver.url}/silent`);
    await sendToPayroll(server, changes.slice(0, 1));
    await until('both calls are delivered', async () => (await states(server)) === 'delivered 2,delivered 3', 30_000);

    const log = await listed(server);
    assert.deepEqual(log.map((call) => call.seq), [2, 1], 'newest first');
    for (const call of log) {
      const { user, month } = changes[0]!;
      assert.deepEqual([call.event, call.statement.id, call.statement.month, call.next_attempt_at, call.resent_at], ['statement.sent_to_payroll', changes[0]!.id, '2026-03', null, null], `${user} ${month}`);
      const one = await get(server, `${calls}/${call.id}`);
      assert.deepEqual(one.call, call, 'the call as the list shows it');
      const sent = receiver.calls.filter((arrived) => arrived.headers['webhook-id'] === call.id);
      assert.deepEqual(one.attempts.map((attempt: Json) => attempt.body), sent.map((arrived) => arrived.body), 'each attempt keeps the body it sent');
      assert.deepEqual(one.attempts.map((attempt: Json) => attempt.attempt), sent.map((_, n) => n + 1));
      for (let n = 1; n < one.attempts.length; n += 1) assert.ok(one.attempts[n].at >= one.attempts[n - 1].at, 'in order of time');
      const outcomes = one.attempts.map((attempt: Json) => [attempt.status, attempt.error, attempt.answer_head]);
      if (call.endpoint_id === failing.id) {
        assert.deepEqual(outcomes, [[500, null, 'answer 500'], [500, null, 'answer 500'], [200, null, 'answer 200']]);
      } else {
        assert.equal(call.endpoint_id, silent.id);
        assert.deepEqual(outcomes, [[null, 'timeout', ''], [202, null, 'answer 202']]);
        assert.ok(one.attempts[0].duration_ms >= 250, `the timed-out attempt lasted its timeout: ${one.attempts[0].duration_ms} ms`);
      }
    }
    const absent = await server.call('GET', `${calls}/msg_000000000000000000000000`, { bearer: ADMIN_TOKEN });
    assert.equal(absent.status, 404);
    assert.equal((await server.call('GET', '/admin/v1/tenants/nobody/webhook-calls', { bearer: ADMIN_TOKEN })).status, 404);
    assert.equal((await server.call('GET', `${calls}/whe_000000000000`, { bearer: ADMIN_TOKEN })).status, 400, 'not a webhook-id');
  });

  test('filtered by endpoint, event and state, newest first, every call once over the pages of any size', async (t) => {
    const server = await deliveringServer(t, { attempts: 1 });
    const receiver = await startReceiver(t, (call) => (call.path.endsWith('/down') ? 503 : 204));
    const changes = await validatedSandbox(server);
    const up = await endpointOf(server, `${receiver.url}/up`);
    const down = await endpointOf(server, `${receiver.url}/down`);
    await sendToPayroll(server, changes.slice(0, 2));
    await until('every call is settled', async () => (await states(server)) === 'delivered 1,delivered 1,failed 1,failed 1', 30_000);

    const all = await listed(server);
    assert.deepEqual(all.map((call) => call.seq), [4, 3, 2, 1]);
    const ids = (filter: (call: Json) => boolean) => all.filter(filter).map((call) => call.id);
    const cases: [string, string, string[]][] = [
      ['an endpoint', `?endpoint=${up.id}`, ids((call) => call.endpoint_id === up.id)],
      ['a state', '?state=failed', ids((call) => call.endpoint_id === down.id)],
      ['an endpoint and a state', `?endpoint=${down.id}&state=delivered`, []],
      ['an event', '?event=statement.sent_to_payroll&state=delivered', ids((call) => call.endpoint_id === up.id)],
      ['pending', '?state=pending', []],
    ];
    for (const [name, query, want] of cases) {
      assert.equal(want.length === 0 || want.length === 2, true);
      assert.deepEqual((await listed(server, query)).map((call) => call.id), want, name);
    }
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.constantFrom('', `&endpoint=${down.id}`, '&state=delivered'), async (limit, filter) => {
        const { ids: paged, sizes } = await allPages(server, `?limit=${limit}${filter}`);
        const want = filter === '' ? all.map((call) => call.id) : ids((call) => call.endpoint_id === (filter.includes('endpoint') ? down.id : up.id));
        assert.deepEqual(paged, want, 'every call once, in order, the filter kept by `next`');
        assert.ok(sizes.slice(0, -1).every((size) => size === limit) && sizes.at(-1)! <= limit && sizes.at(-1)! > 0);
      }),
      { numRuns: 12 },
    );
    assert.equal((await server.call('GET', `${calls}?state=lost`, { bearer: ADMIN_TOKEN })).status, 400);
    assert.equal((await server.call('GET', `${calls}?limit=0`, { bearer: ADMIN_TOKEN })).status, 400);
  });
});

describe('a webhook call sent again by hand', () => {
  test('a delivered call resent arrives again with the same webhook-id, and the log shows both attempts [conf:webhook-resend]', async (t) => {
    const server = await deliveringServer(t);
    const receiver = await startReceiver(t);
    const changes = await validatedSandbox(server);
    await endpointOf(server, receiver.url);
    await sendToPayroll(server, changes.slice(0, 1));
    await until('the call is delivered', async () => (await states(server)) === 'delivered 1');
    const [call] = await listed(server);

    const resent = await server.call('POST', `${calls}/${call!.id}/resend`, { bearer: ADMIN_TOKEN });
    assert.equal(resent.status, 202, resent.text);
    assert.deepEqual([resent.body.id, resent.body.state, resent.body.attempts], [call!.id, 'pending', 1]);
    assert.ok(resent.body.resent_at !== null && resent.body.next_attempt_at !== null);
    await until('the call is delivered again', async () => (await states(server)) === 'delivered 2');
    assert.deepEqual(receiver.calls.map((arrived) => arrived.headers['webhook-id']), [call!.id, call!.id]);
    const { attempts } = await get(server, `${calls}/${call!.id}`);
    assert.deepEqual(attempts.map((attempt: Json) => [attempt.attempt, attempt.status, attempt.body]), receiver.calls.map((arrived, n) => [n + 1, 204, arrived.body]));
    assert.equal((await server.call('POST', `${calls}/msg_000000000000000000000000/resend`, { bearer: ADMIN_TOKEN })).status, 404);
    assert.equal((await server.call('POST', '/admin/v1/tenants/nobody/webhook-calls/msg_000000000000000000000000/resend', { bearer: ADMIN_TOKEN })).status, 404);
  });

  test('a failed call resent gets a fresh series of attempts; a pending one is a 409 and is left as it is', async (t) => {
    const server = await deliveringServer(t, { attempts: 2, timeoutMs: 10_000 });
    let healthy = false;
    let release!: (status: number) => void;
    const held = new Promise<number>((resolve) => (release = resolve));
    const receiver = await startReceiver(t, (call) => (call.path.endsWith('/held') ? held : healthy ? 200 : 503));
    const changes = await validatedSandbox(server);
    const flaky = await endpointOf(server, receiver.url);
    await endpointOf(server, `${receiver.url}/held`);
    await sendToPayroll(server, changes.slice(0, 1));
    await until('the call failed after its two attempts', async () => (await listed(server, `?endpoint=${flaky.id}`))[0]?.state === 'failed');
    const [failed] = await listed(server, `?endpoint=${flaky.id}`);
    assert.equal(failed!.attempts, 2);

    assert.equal((await server.call('POST', `${calls}/${failed!.id}/resend`, { bearer: ADMIN_TOKEN })).status, 202);
    await until('the resent call failed after two attempts more', async () => (await get(server, `${calls}/${failed!.id}`)).call.state === 'failed');
    const again = await get(server, `${calls}/${failed!.id}`);
    assert.deepEqual(again.attempts.map((attempt: Json) => [attempt.attempt, attempt.status]), [[1, 503], [2, 503], [3, 503], [4, 503]], 'a fresh series of two, numbered on');
    healthy = true;
    assert.equal((await server.call('POST', `${calls}/${failed!.id}/resend`, { bearer: ADMIN_TOKEN })).status, 202);
    await until('delivered at the first attempt of the third series', async () => (await get(server, `${calls}/${failed!.id}`)).call.state === 'delivered');
    assert.equal((await get(server, `${calls}/${failed!.id}`)).call.attempts, 5);

    await until('the held call is in flight', () => receiver.calls.some((arrived) => arrived.path.endsWith('/held')));
    const [pending] = await listed(server, '?state=pending');
    const refused = await server.call('POST', `${calls}/${pending!.id}/resend`, { bearer: ADMIN_TOKEN });
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual((await get(server, `${calls}/${pending!.id}`)).call, pending, 'nothing changed');
    release(200);
    await until('the held call is delivered', async () => (await get(server, `${calls}/${pending!.id}`)).call.state === 'delivered');
  });
});
