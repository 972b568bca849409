import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { contractDocument } from '../../src/http/document.js';
import { buildFixture, type Fixture } from '../support/fixture.js';
import { startTestServer } from '../support/harness.js';

type Json = Record<string, any>;
const { definition } = contractDocument();
const operations = Object.entries(definition.paths as Json).flatMap(([path, methods]) =>
  Object.entries(methods as Json).map(([method, operation]) => ({ path, method, operation: operation as Json })),
);
const byId = new Map(operations.map((entry) => [entry.operation.operationId as string, entry]));

/** `$response.body#/a/0/b` against a response body. */
function evaluate(expression: string, body: unknown): unknown {
  const [source, pointer] = expression.split('#') as [string, string];
  assert.equal(source, '$response.body', expression);
  return pointer.split('/').slice(1).reduce<any>((value, token) => value?.[token], body);
}

test('every operation has a summary and a description', () => {
  for (const { path, method, operation } of operations) {
    assert.ok(String(operation.summary ?? '').length > 0, `${method} ${path}: no summary`);
    assert.ok(String(operation.description ?? '').trim().length > 40, `${method} ${path}: no description`);
  }
});

test('every operation of the API carries its version as the prefix of its path: /v1/ or /v2/ [conf:versions-path-prefix]', () => {
  const service = new Set(['/openapi.json', '/healthz', '/docs', '/docs/{asset}', '/metrics']);
  const api = operations.filter(({ path }) => !service.has(path));
  assert.ok(api.some(({ path }) => path.startsWith('/v2/')) && api.length > 10);
  for (const { path, method } of api) assert.match(path, /^\/v[12]\//, `${method} ${path}`);
});

test('the contract\'s version heads the changelog, and a breaking change there raises its first number [conf:versions-breaking-changes]', () => {
  const changelog = readFileSync(new URL('../../CHANGELOG.md', import.meta.url), 'utf8');
  const releases = [...changelog.matchAll(/^## (\d+)\.(\d+)\.(\d+)\b.*\n([\s\S]*?)(?=^## |(?![\s\S]))/gm)].map((match) => ({
    version: match.slice(1, 4).join('.'),
    major: Number(match[1]),
    breaking: /\bbreaking\b/i.test(match[4]!),
  }));
  assert.ok(releases.length >= 2, 'the changelog lists its versions as "## X.Y.Z" headings');
  assert.equal(releases[0]!.version, (definition.info as Json).version);
  releases.forEach((release, i) => {
    const before = releases[i + 1];
    if (before && release.breaking) assert.ok(release.major > before.major, `${release.version} breaks clients of ${before.version} without a new first number`);
  });
});

test('info.contact says who to ask', () => {
  assert.ok(String((definition.info as Json).contact?.name ?? '').length > 0);
});

test("the bulk response's links lead to the read-backs, with parameters those operations have", () => {
  const success = byId.get('upsertGroupsBulk')!.operation.responses['200'];
  const example = (definition.components as Json).examples.BulkResponse.value;
  const links = Object.values(success.links as Json) as Json[];
  assert.deepEqual(links.map((link) => link.operationId).sort(), ['getGroupAttributions', 'getManagerAttributions']);
  for (const link of links) {
    const target = byId.get(link.operationId)!.operation;
    const names = (target.parameters as Json[]).map((parameter) => (parameter.$ref ? resolveRef(parameter.$ref).name : parameter.name));
    for (const [name, expression] of Object.entries(link.parameters as Record<string, string>)) {
      assert.ok(names.includes(name), `${link.operationId} has no parameter ${name}`);
      assert.equal(typeof evaluate(expression, example), 'string', `${expression} gives nothing on the example`);
    }
  }
});

function resolveRef(ref: string): Json {
  return ref.slice(2).split('/').reduce<any>((value, token) => value[token], definition);
}

test('the e-mail rule the server enforces is the one the document states', async (t) => {
  const rule = String((definition.components as Json).schemas.Email.description);
  assert.match(rule, /at least two labels/);
  assert.match(rule, /ada@localhost/);
  let fixture!: Fixture;
  const server = await startTestServer(t, {}, async (store) => {
    fixture = await buildFixture(store, { tenant: 'acme' });
  });
  // 400: refused by the e-mail rule; 422: a well-formed address of no user of the tenant.
  const cases: [string, { email: string; want: number }][] = [
    ['a domain without a dot', { email: 'ada@localhost', want: 400 }],
    ['a quoted local part', { email: '"ada"@example.com', want: 400 }],
    ['an IP-address domain', { email: 'ada@[127.0.0.1]', want: 400 }],
    ['a non-ASCII letter', { email: 'adà@example.com', want: 400 }],
    ['two dots in a row', { email: 'a..b@example.com', want: 400 }],
    ['a label ending in a hyphen', { email: 'ada@example-.com', want: 400 }],
    ['dots, plus and a subdomain', { email: 'a.b+c@mail.example.com', want: 422 }],
    ['capitals', { email: 'ADA@EXAMPLE.COM', want: 422 }],
  ];
  for (const [name, { email, want }] of cases) {
    await t.test(name, async () => {
      const item = { user: email, group_dimension: 'region', group: 'EMEA', start_date: '2026-01' };
      const answer = await server.call('PUT', '/v1/users/groups/bulk', { key: fixture.key, json: { data: [item] } });
      assert.equal(answer.status, want, answer.text);
      assert.equal(answer.body.errors[0].pointer, '/data/0/user');
    });
  }
});
