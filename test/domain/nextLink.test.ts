import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nextLink, type LinkTarget, type NextPosition } from '../../src/domain/nextLink.js';

const HOST = 'http://127.0.0.1:8080';

describe('nextLink', () => {
  const cases: [string, { target: LinkTarget; position: NextPosition; want: string }][] = [
    [
      'a v1 page: limit, then offset',
      { target: { base: HOST, path: '/v1/reporting' }, position: { kind: 'offset', limit: 10, offset: 10n }, want: `${HOST}/v1/reporting?limit=10&offset=10` },
    ],
    [
      'a v1 page past 2^53: the offset exact',
      {
        target: { base: HOST, path: '/v1/reporting' },
        position: { kind: 'offset', limit: 1, offset: 9223372036854775806n },
        want: `${HOST}/v1/reporting?limit=1&offset=9223372036854775806`,
      },
    ],
    [
      'a v1 page with filters: the filters first, in their order, absent ones left out',
      {
        target: { base: HOST, path: '/v1/reporting', params: [['user', 'ada@example.com'], ['date_from', undefined], ['date_to', '2026-03-31'], ['plan', 'Q1']] },
        position: { kind: 'offset', limit: 5, offset: 5n },
        want: `${HOST}/v1/reporting?user=ada%40example.com&date_to=2026-03-31&plan=Q1&limit=5&offset=5`,
      },
    ],
    [
      "a read-back's page: the store's cursor last",
      {
        target: { base: HOST, path: '/v1/users/groups', params: [['user', undefined], ['group_dimension', 'region']] },
        position: { kind: 'offset', limit: 2, offset: 4n, cursor: 'WyI0IiwiW10iXQ-_x' },
        want: `${HOST}/v1/users/groups?group_dimension=region&limit=2&offset=4&cursor=WyI0IiwiW10iXQ-_x`,
      },
    ],
    [
      'a sync page: limit, then the token as changed_since',
      {
        target: { base: HOST, path: '/v1/tables/deals/records' },
        position: { kind: 'sync', limit: 2, token: 'c1.AAAAAg' },
        want: `${HOST}/v1/tables/deals/records?limit=2&changed_since=c1.AAAAAg`,
      },
    ],
    [
      'a v2 page: start_id and limit first, then the filters',
      {
        target: { base: HOST, path: '/v2/reporting/statements/statements', params: [['last_modified_after', '2026-11-20T08:00:00Z'], ['last_modified_before', undefined]] },
        position: { kind: 'v2', limit: 100, startId: '42' },
        want: `${HOST}/v2/reporting/statements/statements?start_id=42&limit=100&last_modified_after=2026-11-20T08%3A00%3A00Z`,
      },
    ],
    [
      'a v2 page without filters',
      { target: { base: HOST, path: '/v2/reporting/t1/records' }, position: { kind: 'v2', limit: 2000, startId: 'r-9' }, want: `${HOST}/v2/reporting/t1/records?start_id=r-9&limit=2000` },
    ],
    [
      'a public URL with a path prefix: the path follows it',
      {
        target: { base: 'https://comp.example.test/api/compdata', path: '/v1/tables/deals%20q1/records' },
        position: { kind: 'offset', limit: 5, offset: 5n },
        want: 'https://comp.example.test/api/compdata/v1/tables/deals%20q1/records?limit=5&offset=5',
      },
    ],
    [
      'values that need escaping: form-encoded (a space is +)',
      {
        target: { base: HOST, path: '/v1/reporting', params: [['user', 'a+b c&d=e/é@example.com'], ['plan', '50% #1?']] },
        position: { kind: 'offset', limit: 3, offset: 3n },
        want: `${HOST}/v1/reporting?user=a%2Bb+c%26d%3De%2F%C3%A9%40example.com&plan=50%25+%231%3F&limit=3&offset=3`,
      },
    ],
    [
      'a v2 start id and time that need escaping',
      {
        target: { base: HOST, path: '/v2/reporting/t1/records', params: [['last_modified_after', undefined], ['last_modified_before', '2026-11-20T08:00:00+01:00']] },
        position: { kind: 'v2', limit: 1, startId: 'deal #7/α' },
        want: `${HOST}/v2/reporting/t1/records?start_id=deal+%237%2F%CE%B1&limit=1&last_modified_before=2026-11-20T08%3A00%3A00%2B01%3A00`,
      },
    ],
  ];
  for (const [name, { target, position, want }] of cases) {
    test(name, () => assert.equal(nextLink(target, position), want));
  }

  test('a link read back gives the values it was built from', () => {
    const user = 'a+b c&d=e/é@example.com';
    const link = new URL(nextLink({ base: HOST, path: '/v1/reporting', params: [['user', user]] }, { kind: 'offset', limit: 3, offset: 3n }));
    assert.deepEqual([...link.searchParams], [['user', user], ['limit', '3'], ['offset', '3']]);
  });
});
