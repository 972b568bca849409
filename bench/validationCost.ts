/**
 * What refusing a large bad body costs: openapi-backend's validation of one request against the
 * contract and the turning of its errors into the 400's pointers (validationErrors.ts), in this
 * process, without HTTP. Bodies of ITEMS items for the managers, groups and users bulk
 * operations, all bad (each with three faults), or all good but the last (the whole body is
 * walked); prints CPU milliseconds per request (median of rounds), the errors openapi-backend's
 * Ajv reported and the errors the answer lists.
 *
 *   node --import tsx bench/validationCost.ts [ITEMS] [ROUNDS]
 */
import { createApi } from '../src/http/api.js';
import { loadDocument } from '../src/http/document.js';
import type { HandlerDeps } from '../src/http/handlerTypes.js';
import { requestProblems } from '../src/http/validationErrors.js';
import { median } from './stats.js';

const [itemsText = '10000', roundsText = '9'] = process.argv.slice(2);
const items = Number(itemsText);
const rounds = Number(roundsText);
const { backend } = await createApi({
  definition: loadDocument().definition,
  deps: {} as HandlerDeps,
  authenticate: async () => undefined,
  readBody: async () => undefined,
  readPushBody: async () => undefined,
});

const managerItem = { user: 'not an e-mail', manager: 7, start_date: '2026-13' };
const groupItem = { user: 'not an e-mail', group_dimension: 7, group: 'EMEA', start_date: '2026-13' };
const userItem = { email: 'not an e-mail', name: 7, start_date: '2026-13' };
const goodManager = { user: 'user1@acme.example', manager: 'user2@acme.example' };
const goodGroup = { user: 'user1@acme.example', group_dimension: 'region', group: 'EMEA', start_date: '2026-01' };
const goodUser = { email: 'user1@acme.example', name: 'User One', start_date: '2026-01' };
const operations = [
  { operationId: 'upsertManagersBulk', path: '/v1/users/managers/bulk', bad: managerItem, good: goodManager },
  { operationId: 'upsertGroupsBulk', path: '/v1/users/groups/bulk', bad: groupItem, good: goodGroup },
  { operationId: 'upsertUsersBulk', path: '/v1/users/bulk', bad: userItem, good: goodUser },
];
const cases = operations.flatMap(({ bad, good, ...operation }) => [
  { ...operation, shape: 'all bad', data: Array.from({ length: items }, () => ({ ...bad })) },
  { ...operation, shape: 'the last bad', data: [...Array.from({ length: items - 1 }, () => ({ ...good })), { ...bad }] },
]);

for (const { operationId, path, shape, data } of cases) {
  const body = { data };
  const operation = backend.router.getOperation(operationId)!;
  const request = { method: 'put', path, query: {}, headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body };
  const times: number[] = [];
  let reported = 0;
  let listed = 0;
  for (let round = 0; round < rounds; round += 1) {
    const started = process.cpuUsage();
    const validation = backend.validator.validateRequest(request, operation);
    const { errors } = requestProblems(validation.errors ?? [], operation, { value: body });
    const used = process.cpuUsage(started);
    times.push((used.user + used.system) / 1000);
    reported = validation.errors?.length ?? 0;
    listed = errors.length;
  }
  console.log(`${operationId}: ${items} items, ${shape}: ${median(times).toFixed(1)} ms CPU, ${reported} errors from Ajv, ${listed} listed`);
}
