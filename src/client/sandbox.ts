import createFetchClient from 'openapi-fetch';
import type { components, paths } from '../../generated/admin.js';
import { createClient, type ClientOptions, type CompdataClient } from './createClient.js';
import { ProblemError } from './problemError.js';
import { retryingFetch, retryPolicy } from './retry.js';

type SandboxRequest = components['schemas']['SandboxRequest'];
/**
 * The request as a client may send it: every field optional. The generated type makes a field
 * with a `default` required (openapi-typescript reads a default as "always present"), which
 * holds for what the server sees after validation, not for what a client sends.
 */
type SandboxRecipe = Partial<SandboxRequest>;
type CreatedSandbox = components['schemas']['Sandbox'];

/** Where the server is and the administration token, when `createSandbox` is not told. */
export const SANDBOX_ENV = { url: 'COMPDATA_URL', adminToken: 'COMPDATA_ADMIN_TOKEN' } as const;
/** The server's URL when neither the options nor `COMPDATA_URL` give one (as `compdata serve` listens by default). */
export const DEFAULT_URL = 'http://127.0.0.1:8080';

/**
 * What the sandbox is made of: the body of `POST /admin/v1/sandboxes` (`name`, `users`,
 * `records`, `seed`, `template`; `keyScope` is its `key_scope`), where the server is, and the
 * options of the sandbox's client.
 */
export interface SandboxOptions extends Omit<SandboxRecipe, 'key_scope'>, Pick<ClientOptions, 'fetch' | 'retry' | 'signal'> {
  /** The server's base URL (public and administration API on one port). Default: `COMPDATA_URL`, else `http://127.0.0.1:8080`. */
  baseUrl?: string;
  /** The administration token the server was started with. Default: `COMPDATA_ADMIN_TOKEN` (what `compdata serve` reads too). */
  adminToken?: string;
  /** The scope of the sandbox's key: `write` (default) or `read`. */
  keyScope?: SandboxRequest['key_scope'];
}

/** A tenant of its own for a test, with a client holding its key. */
export interface Sandbox extends AsyncDisposable {
  /** A client of the public API with the sandbox's key (so it reads and writes this tenant only). */
  client: CompdataClient;
  /** The tenant as the server made it: `name`, `created_at` and `expires_at` (its time to live, `ttl_seconds` in the options). */
  tenant: CreatedSandbox['tenant'];
  /** The sandbox's one key: `id`, `key` (the secret, sent as `X-API-Key`) and `scope`. */
  key: CreatedSandbox['key'];
  /**
   * Puts the tenant back in the state it was created in (`POST /admin/v1/tenants/{name}/reset`),
   * all or nothing; its key keeps working.
   */
  reset(): Promise<void>;
  /**
   * Deletes the tenant with its data and keys (`DELETE /admin/v1/tenants/{name}`). Calling it
   * again, or once the tenant is gone by other means, does nothing more. `await using` calls it.
   */
  dispose(): Promise<void>;
}

/**
 * Makes a sandbox tenant over the administration API (`POST /admin/v1/sandboxes`) and a client
 * for it. Every refusal of the server is thrown as a `ProblemError` (a wrong token: `401`); a
 * missing token or a URL that is not absolute is a `TypeError` before any request.
 *
 * ```ts
 * await using sandbox = await createSandbox({ records: 50 });
 * for await (const record of sandbox.client.reporting.records()) console.log(record.id);
 * ```
 */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { baseUrl, adminToken, keyScope, fetch, retry, signal, ...recipe } = options;
  const env = environment();
  const url = baseUrl ?? (env[SANDBOX_ENV.url] || DEFAULT_URL);
  const token = adminToken ?? env[SANDBOX_ENV.adminToken];
  if (!token) throw new TypeError(`createSandbox needs the server's administration token: set ${SANDBOX_ENV.adminToken} or pass adminToken`);
  new URL(url); // throws a TypeError on a URL that is not absolute, before any request
  const send = fetch ?? ((request: Request) => globalThis.fetch(request));
  const admin = createFetchClient<paths>({
    baseUrl: url,
    headers: { Authorization: `Bearer ${token}` },
    // A reset and a delete may be sent again (the same outcome); a create is not, unless `retry.writes` says so.
    fetch: retryingFetch(send, retryPolicy(retry)),
  });
  const again = retryingFetch(send, { ...retryPolicy(retry), writes: true });

  const body: SandboxRecipe = { ...recipe, ...(keyScope !== undefined && { key_scope: keyScope }) };
  const created = await admin.POST('/admin/v1/sandboxes', { body: body as SandboxRequest, signal });
  if (created.data === undefined) throw ProblemError.fromAnswer(created.error, created.response);
  const { tenant, key } = created.data;
  const path = { params: { path: { name: tenant.name } }, fetch: again, signal };

  const deleteTenant = async () => {
    const { error, response } = await admin.DELETE('/admin/v1/tenants/{name}', path);
    // Gone already (deleted by other means) is what dispose wants.
    if (!response.ok && response.status !== 404) throw ProblemError.fromAnswer(error, response);
  };
  /** The one delete, shared by every call; forgotten when it fails, so that a later call tries again. */
  let disposed: Promise<void> | undefined;
  const dispose = () =>
    (disposed ??= deleteTenant().catch((error: unknown) => {
      disposed = undefined;
      throw error;
    }));
  return {
    client: createClient({ baseUrl: url, apiKey: key.key, fetch: send, retry, signal }),
    tenant,
    key,
    async reset() {
      if (disposed) throw new Error(`the sandbox ${tenant.name} was disposed: there is nothing to reset`);
      const { error, response } = await admin.POST('/admin/v1/tenants/{name}/reset', path);
      if (!response.ok) throw ProblemError.fromAnswer(error, response);
    },
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}

/** The process's environment, or none where there is no `process` (a browser). */
function environment(): Record<string, string | undefined> {
  return typeof process === 'undefined' ? {} : process.env;
}
