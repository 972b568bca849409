import assert from 'node:assert/strict';
import { test } from 'node:test';
import { webhookUrlProblem } from '../../src/domain/webhookUrl.js';

test('webhookUrlProblem', async (t) => {
  const privateNote = ' (the server is not started with --webhook-allow-private)';
  const cases: [string, { given: string; want: string | undefined; allowed?: string | undefined }][] = [
    ['a public name', { given: 'https://payroll.example.com/compdata', want: undefined }],
    ['a public address', { given: 'http://93.184.215.14:8080/hook', want: undefined }],
    ['not http', { given: 'ftp://payroll.example.com/', want: 'must be http or https', allowed: 'must be http or https' }],
    ['a user and password', { given: 'https://me:pw@payroll.example.com/', want: 'must not carry a user name or password', allowed: 'must not carry a user name or password' }],
    ['a user alone', { given: 'https://me@payroll.example.com/', want: 'must not carry a user name or password', allowed: 'must not carry a user name or password' }],
    ['not a URL', { given: 'http://', want: 'is not a URL', allowed: 'is not a URL' }],
    ['localhost', { given: 'http://localhost:3000/', want: `must not be localhost${privateNote}` }],
    ['localhost with a final dot, in capitals', { given: 'http://LOCALHOST./', want: `must not be localhost${privateNote}` }],
    ['a name under localhost', { given: 'http://app.localhost/', want: `must not be localhost${privateNote}` }],
    ['loopback', { given: 'http://127.0.0.1:9/hook', want: `must not be a private address: loopback address 127.0.0.1${privateNote}` }],
    ['loopback as one number', { given: 'http://2130706433/', want: `must not be a private address: loopback address 127.0.0.1${privateNote}` }],
    ['loopback in hex', { given: 'http://0x7f.1/', want: `must not be a private address: loopback address 127.0.0.1${privateNote}` }],
    ['IPv6 loopback', { given: 'http://[::1]:8080/', want: `must not be a private address: loopback address ::1${privateNote}` }],
    ['IPv4-mapped loopback', { given: 'http://[::ffff:127.0.0.1]/', want: `must not be a private address: loopback address ::ffff:7f00:1 (IPv4-mapped)${privateNote}` }],
    ['the metadata address', { given: 'http://169.254.169.254/latest/meta-data/', want: `must not be a private address: linkLocal address 169.254.169.254${privateNote}` }],
    ['private', { given: 'https://10.1.2.3/', want: `must not be a private address: private address 10.1.2.3${privateNote}` }],
    ['unique local', { given: 'https://[fd00::5]/', want: `must not be a private address: uniqueLocal address fd00::5${privateNote}` }],
    ['this network', { given: 'http://0/', want: `must not be a private address: unspecified address 0.0.0.0${privateNote}` }],
  ];
  for (const [name, { given, want, allowed }] of cases) {
    await t.test(name, () => {
      assert.equal(webhookUrlProblem(given, false), want);
      assert.equal(webhookUrlProblem(given, true), allowed);
    });
  }
});
