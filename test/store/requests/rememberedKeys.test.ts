import assert from 'node:assert/strict';
import { describe,it } from 'node:test';
import { rememberedKeys } from '../../../src/store/requests/rememberedKeys.js';

const known = (grant: string) => ({ secretHash: Buffer.alloc(32, 1), grant });

describe('rememberedKeys', () => {
  it('recalls a lookup while the counter stays, and nothing once it has moved', () => {
    let counter = 7;
    const keys = rememberedKeys<string>(() => counter);
    assert.equal(keys.recall('a'), undefined);
    keys.remember('a', keys.counter(), known('tenant 1'));
    keys.remember('b', keys.counter(), null);
    assert.equal(keys.recall('a')?.grant, 'tenant 1');
    assert.equal(keys.recall('b'), null, 'an id no key has is remembered as such');
    counter += 1;
    assert.equal(keys.recall('a'), undefined);
    assert.equal(keys.recall('b'), undefined);
  });

  it('does not remember a lookup that a commit may have overtaken', () => {
    let counter = 1;
    const keys = rememberedKeys<string>(() => counter);
    keys.recall('a');
    const before = keys.counter();
    counter += 1; // committed between the counter's reading and the lookup
    keys.remember('a', before, known('old'));
    assert.equal(keys.recall('a'), undefined);
    keys.remember('a', keys.counter(), known('new'));
    assert.equal(keys.recall('a')?.grant, 'new');
  });

  it('forgets everything when told (a commit its counter does not count)', () => {
    const keys = rememberedKeys<string>(() => 1);
    keys.recall('a');
    keys.remember('a', keys.counter(), known('x'));
    keys.forget();
    assert.equal(keys.recall('a'), undefined);
  });
});
