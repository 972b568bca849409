import { buildFixture, type Fixture } from './fixture.js';
import { startTestServer, type Scope } from './harness.js';

/** How many users the users tests' fixture has: `user{i}@acme.example`, ids `u{i}`. */
export const USERS = 12;

/**
 * The server of the users tests (PUT /v1/users/bulk): the fixture's tenant with USERS users and
 * 48 records (user `u{i % 12}`, every amount in EUR), a PUT of users and a GET with its key.
 */
export async function usersServer(scope: Scope) {
  let fixture!: Fixture;
  const server = await startTestServer(scope, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme', users: USERS, records: 48 });
  });
  const put = (data: unknown[]) => server.call('PUT', '/v1/users/bulk', { key: fixture.key, json: { data } });
  const get = (path: string, headers?: Record<string, string>) => server.call('GET', path, { key: fixture.key, headers });
  return { server, fixture, put, get };
}
