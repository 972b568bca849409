import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidArgumentError } from 'commander';
import { integerIn, parsePort, parsePublicUrl, parseTenantName, parseText } from '../../src/cli/arguments.js';
import { serveCommand } from '../../src/cli/serve.js';

function refuses(parse: (text: string) => unknown, text: string): void {
  assert.throws(() => parse(text), InvalidArgumentError, JSON.stringify(text));
}

describe('option values', () => {
  test('integers: decimal digits within the bounds only', () => {
    const parse = integerIn(1, 100);
    const accepted: [string, number][] = [['1', 1], ['100', 100], ['007', 7]];
    for (const [text, want] of accepted) assert.equal(parse(text), want, text);
    for (const text of ['0', '101', '-1', '+5', '1.5', '1e2', '0x10', ' 5', '', 'ten', '99999999999999999999']) {
      refuses(parse, text);
    }
  });

  test('ports: 0 to 65535', () => {
    assert.equal(parsePort('0'), 0);
    assert.equal(parsePort('65535'), 65535);
    for (const text of ['65536', '-1', '80a']) refuses(parsePort, text);
  });

  test('public URLs: absolute http(s), normalised without a trailing slash', () => {
    const accepted: [string, string][] = [
      ['https://api.example.com', 'https://api.example.com'],
      ['https://api.example.com/', 'https://api.example.com'],
      ['http://localhost:8080/compdata/', 'http://localhost:8080/compdata'],
      ['HTTPS://API.example.com:443/x', 'https://api.example.com/x'],
    ];
    for (const [text, want] of accepted) assert.equal(parsePublicUrl(text), want, text);
    const refused = ['/v1', 'api.example.com', 'ftp://h', 'https://h/?a=1', 'https://h/?', 'https://h/#top', 'https://u:p@h/', ''];
    for (const text of refused) refuses(parsePublicUrl, text);
  });

  test('texts and tenant names: non-empty, no surrounding blanks or control characters', () => {
    for (const text of ['acme', 'Globex Corp', 'data/x.db']) assert.equal(parseTenantName(text), text);
    for (const text of ['', ' acme', 'acme ', 'a\nb', 'a\tb']) {
      refuses(parseText, text);
      refuses(parseTenantName, text);
    }
    refuses(parseTenantName, 'x'.repeat(101));
    assert.equal(parseTenantName('x'.repeat(100)).length, 100);
  });

  test("serve's byte limits: from 1 byte to their documented bounds (4 GiB for a push)", () => {
    // A refused value throws here instead of ending the process.
    const serveOptions = () => serveCommand().exitOverride().configureOutput({ writeErr: () => {} });
    const accepted: [string, string, number][] = [
      ['--push-body-limit', '4194304', 4194304],
      ['--push-body-limit', String(2 ** 32), 2 ** 32],
      ['--push-body-limit', '1', 1],
      ['--body-limit', String(2 ** 30), 2 ** 30],
    ];
    for (const [option, text, want] of accepted) {
      const serve = serveOptions();
      serve.parseOptions([option, text]);
      assert.equal(serve.opts()[option === '--body-limit' ? 'bodyLimit' : 'pushBodyLimit'], want, `${option} ${text}`);
    }
    for (const [option, text] of [['--push-body-limit', String(2 ** 32 + 1)], ['--push-body-limit', '0'], ['--body-limit', String(2 ** 30 + 1)]]) {
      assert.throws(() => serveOptions().parseOptions([option!, text!]), /is invalid/, `${option} ${text}`);
    }
  });
});
