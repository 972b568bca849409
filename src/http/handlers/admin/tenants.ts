import type { components } from '../../../../generated/admin.js';
import { resetSandbox, ResetUnavailable } from '../../../dataset/sandboxes.js';
import type { TenantSummary } from '../../../store/vocabulary/tenancy.js';
import type { OperationHandler } from '../../handlerTypes.js';
import { problems } from '../../problems.js';
import { publicBase } from '../../publicBase.js';
import { pathParam, type AdminDeps } from './adminDeps.js';

type TenantPage = components['schemas']['TenantPage'];

/** The page size of `GET /admin/v1/tenants` when the request says none (openapi/admin.yaml). */
const DEFAULT_LIMIT = 100;

const summary = (tenant: TenantSummary): TenantPage['data'][number] => ({
  name: tenant.name,
  created_at: tenant.createdAt,
  users: tenant.users,
  reporting_records: tenant.reportingRecords,
  table_records: tenant.tableRecords,
  expires_at: tenant.expiresAt,
});

/**
 * `GET /admin/v1/tenants`: the tenants by name, `limit` after `after`. One more than the page is
 * read, so that `next` is there exactly when a tenant follows.
 */
export const listTenants =
  ({ store, publicBase: baseConfig }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const query = api.request.query as { limit?: string; after?: string };
    const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
    const found = await store.listTenants({ ...(query.after !== undefined && { after: query.after }), limit: limit + 1 });
    const data = found.slice(0, limit).map(summary);
    const body: TenantPage = { count: data.length, data };
    if (found.length > limit) {
      const next = new URLSearchParams({ limit: String(limit), after: data.at(-1)!.name });
      body.next = `${publicBase(ctx, baseConfig)}/admin/v1/tenants?${next}`;
    }
    ctx.body = body;
  };

/** `DELETE /admin/v1/tenants/{name}`: the tenant, its keys and all its data, in one transaction. */
export const deleteTenant =
  ({ store }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const name = pathParam(api, 'name');
    if (!(await store.deleteTenant(name))) throw noSuchTenant(name);
    ctx.status = 204;
  };

/**
 * `POST /admin/v1/tenants/{name}/reset`: the sandbox put back as it was created, in one transaction
 * (src/dataset/sandboxes.ts); its keys stay. A tenant not made as a sandbox is a 409.
 */
export const resetTenant =
  ({ store }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const name = pathParam(api, 'name');
    let outcome;
    try {
      outcome = await resetSandbox(store, name);
    } catch (error) {
      if (error instanceof ResetUnavailable) throw problems.conflict(`The tenant ${name} cannot be reset: ${error.message}.`);
      throw error;
    }
    if (outcome === 'unknown') throw noSuchTenant(name);
    if (outcome === 'noRecipe') throw problems.conflict(`The tenant ${name} was not made as a sandbox (POST /admin/v1/sandboxes): there is no state to reset it to.`);
    ctx.status = 204;
  };

export const noSuchTenant = (name: string) => problems.notFound(`No tenant is named ${name}.`);
