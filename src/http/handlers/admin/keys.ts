import type { components } from '../../../../generated/admin.js';
import { UnknownTenant } from '../../../store/vocabulary/storeErrors.js';
import type { OperationHandler } from '../../handlerTypes.js';
import { problems } from '../../problems.js';
import { pathParam, type AdminDeps } from './adminDeps.js';
import { noSuchTenant } from './tenants.js';

type KeyRequest = components['schemas']['KeyRequest'];
type NewKey = components['schemas']['NewKey'];
type KeyList = components['schemas']['KeyList'];

/**
 * `POST /admin/v1/tenants/{name}/keys`: a key for an existing tenant, made by the store's
 * `createKey` as `compdata keys create` makes one, except that a missing tenant is a 404, never created.
 */
export const createTenantKey =
  ({ store }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const name = pathParam(api, 'name');
    const scope = ((ctx.state.body ?? {}) as KeyRequest).scope ?? 'write';
    try {
      const { id, key } = await store.createKey(name, scope, { mustExist: true });
      const body: NewKey = { id, key, scope };
      ctx.status = 201;
      ctx.body = body;
    } catch (error) {
      if (error instanceof UnknownTenant) throw noSuchTenant(name);
      throw error;
    }
  };

/** `GET /admin/v1/tenants/{name}/keys`: the tenant's keys as `compdata keys list` lists them, without secrets. */
export const listTenantKeys =
  ({ store }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const name = pathParam(api, 'name');
    if (!(await store.findTenant(name))) throw noSuchTenant(name);
    const body: KeyList = { data: (await store.listKeys(name)).map(({ id, created_at, state, scope }) => ({ id, created_at, state, scope })) };
    ctx.body = body;
  };

/** `DELETE /admin/v1/keys/{id}`: the store's `revokeKey`, as `compdata keys revoke` revokes one. */
export const revokeKey =
  ({ store }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const id = pathParam(api, 'id');
    if (!(await store.revokeKey(id))) throw problems.notFound(`No active key has the id ${id}.`);
    ctx.status = 204;
  };
