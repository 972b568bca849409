import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { readAdminToken } from '../../src/cli/adminTokenOption.js';

describe('serve --admin-token-file and COMPDATA_ADMIN_TOKEN', () => {
  const dir = mkdtempSync(join(tmpdir(), 'admin-token-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  test('the file wins over the environment; one trailing line break is not part of the token; none: off', () => {
    assert.equal(readAdminToken(file('ok', '0123456789abcdefXYZ\n'), { COMPDATA_ADMIN_TOKEN: 'from-the-environment-0000' }), '0123456789abcdefXYZ');
    assert.equal(readAdminToken(undefined, { COMPDATA_ADMIN_TOKEN: 'from-the-environment-0000' }), 'from-the-environment-0000');
    assert.equal(readAdminToken(undefined, {}), undefined);
  });

  test('an empty, short or missing token file, or a short variable, is refused with one line that never shows the token', () => {
    for (const [path, env] of [
      [file('empty', ''), {}],
      [file('short', 'short-token\n'), {}],
      [join(dir, 'absent'), {}],
      [undefined, { COMPDATA_ADMIN_TOKEN: 'short-token' }],
    ] as const) {
      assert.throws(() => readAdminToken(path, env), (error: Error) => !error.message.includes('\n') && !error.message.includes('short-token'));
    }
  });
});
