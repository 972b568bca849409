/**
 * `compdata/testing`'s types, as an integrator's test file sees them: what must compile (each
 * `Equal` holds only for the exact type) and, marked `@ts-expect-error`, what must not.
 */
import type { CompdataClient } from 'compdata/client';
import { createSandbox, ProblemError, type Sandbox, type SandboxOptions } from 'compdata/testing';
import type { components } from '../../../generated/admin.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only when `T` is `true`. */
function same<T extends true>(): T | void {}

type Created = components['schemas']['Sandbox'];

export async function typedSandbox() {
  await using sandbox = await createSandbox({ users: 5, records: 30, seed: 'types', keyScope: 'read' });
  same<Equal<typeof sandbox, Sandbox>>();
  same<Equal<typeof sandbox.client, CompdataClient>>();
  same<Equal<typeof sandbox.tenant, Created['tenant']>>();
  same<Equal<typeof sandbox.key, Created['key']>>();
  same<Equal<typeof sandbox.key.scope, 'read' | 'write'>>();
  same<Equal<ReturnType<Sandbox['reset']>, Promise<void>>>();
  same<Equal<ReturnType<Sandbox['dispose']>, Promise<void>>>();
  same<Equal<SandboxOptions['seed'], string | number | undefined>>();
  const copy = await createSandbox({ template: sandbox.tenant.name, baseUrl: 'http://127.0.0.1:8080', adminToken: 'x'.repeat(16) });
  await copy.dispose();
  const defaults = await createSandbox();
  await defaults[Symbol.asyncDispose]();
  try {
    await sandbox.reset();
  } catch (error) {
    if (error instanceof ProblemError) same<Equal<typeof error.status, number>>();
  }
}

export async function refused() {
  // @ts-expect-error a key's scope is read or write
  await createSandbox({ keyScope: 'admin' });
  // @ts-expect-error users is a number
  await createSandbox({ users: '5' });
  // @ts-expect-error the request's own spelling is not an option (keyScope is)
  await createSandbox({ key_scope: 'read' });
  // @ts-expect-error an option the administration API does not have
  await createSandbox({ ttl: 60 });
  const sandbox = await createSandbox();
  // @ts-expect-error the tenant is an object (its name is `tenant.name`)
  const name: string = sandbox.tenant;
  void name;
}
