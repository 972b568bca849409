import type { WriteSteps } from '../engine/transactionSteps.js';
import { TenantNotEmpty } from '../vocabulary/storeErrors.js';
import type { Tenant } from '../vocabulary/tenancy.js';

/**
 * The names of the hidden tenants that hold the created state of the copies of one version of
 * one template (docs/administration.md#reset): `ORIGINS`, the template's id, `:`, the version.
 * They start with U+0001, which no tenant name given to the CLI or the administration API may
 * hold: no key, no request and no listing reaches them.
 */
const ORIGINS = '\u0001origin:';
const originsOf = (templateId: number) => `${ORIGINS}${templateId}:`;
const originName = (template: Tenant, version: string) => `${originsOf(template.id)}${version}`;
/** The name that follows every name starting with `prefix` (its last character's next). */
const pastPrefix = (prefix: string) => prefix.slice(0, -1) + String.fromCodePoint(prefix.codePointAt(prefix.length - 1)! + 1);

/**
 * Copies the tenant `template`'s data into the new tenant `target` at the engine's level, inside
 * the caller's write transaction (AdminStore.copyTenant). With `recipe`, `target` is a sandbox:
 * its recipe names the origin, filled from the template first when this version has none yet.
 * The new tenant's id; `undefined` when no tenant is named `template`.
 */
export async function copyInto(steps: WriteSteps, template: string, target: string, recipe?: string): Promise<number | undefined> {
  const source = await steps.findTenant(template);
  if (!source) return undefined;
  const tenant = await steps.ensureTenant(target);
  await steps.lockTenant(tenant.id);
  if (await steps.hasData(tenant.id)) throw new TenantNotEmpty(`tenant ${JSON.stringify(target)} already has data`);
  // The template's writers wait for the copy's few statements, which then read one state of it.
  if (source.id !== tenant.id) await steps.lockTenant(source.id);
  const origin = recipe === undefined ? undefined : await originOf(steps, source);
  await fill(steps, source.id, tenant.id);
  if (recipe !== undefined) await steps.saveRecipe(tenant.id, { recipe, dataset: null, origin });
  return tenant.id;
}

/** The sandbox `sandbox` put back from its origin (its data deleted by the caller), inside the caller's transaction. */
export async function copyFromOrigin(steps: WriteSteps, origin: number, sandbox: number, stamp: number): Promise<void> {
  await steps.lockTenant(origin);
  await steps.copyData(origin, sandbox, stamp);
}

/**
 * After the deletion of a sandbox made from the origin `originId`: deletes the origin when no
 * sandbox names it any more and it does not hold its template's present version (the template
 * changed, or was deleted). The origin of a template's present version stays for its next copy.
 */
export async function dropUnusedOrigin(steps: WriteSteps, originId: number): Promise<void> {
  // A copy that takes the origin holds its lock until it commits its recipe.
  await steps.lockTenant(originId);
  if (await steps.originInUse(originId)) return;
  const origin = (await steps.tenantsNamedBetween(ORIGINS, pastPrefix(ORIGINS))).find(({ id }) => id === originId);
  if (!origin) return;
  const [templateId, version] = origin.name.slice(ORIGINS.length).split(':');
  if ((await steps.dataVersion(Number(templateId))) !== version) await steps.deleteTenant(originId);
}

/**
 * Deletes the origins of the template `templateId` that no sandbox names, but `keep`: after a
 * new version's origin is made (`keep`), or after the template's deletion.
 */
export async function dropStaleOrigins(steps: WriteSteps, templateId: number, keep?: number): Promise<void> {
  const prefix = originsOf(templateId);
  for (const origin of await steps.tenantsNamedBetween(prefix, pastPrefix(prefix))) {
    if (origin.id === keep) continue;
    await steps.lockTenant(origin.id);
    if (!(await steps.originInUse(origin.id))) await steps.deleteTenant(origin.id);
  }
}

/** The origin of the template's present version: found, or made and filled from the template. */
async function originOf(steps: WriteSteps, template: Tenant): Promise<number> {
  // The template is there: the copy found it and holds its lock.
  const name = originName(template, (await steps.dataVersion(template.id))!);
  for (;;) {
    const origin = await steps.ensureTenant(name);
    await steps.lockTenant(origin.id);
    // Another transaction may have deleted it while this waited for its lock (PostgreSQL): the
    // deletion of the template's last copy of a version since changed, or of the template.
    if ((await steps.findTenant(name))?.id !== origin.id) continue;
    if (!(await steps.hasData(origin.id))) {
      // Made now, or by a copy of a template holding only metrics or dimensions.
      await steps.deleteData(origin.id);
      await fill(steps, template.id, origin.id);
      // The origins of the template's earlier versions can no longer be used but by their sandboxes.
      await dropStaleOrigins(steps, template.id, origin.id);
    }
    return origin.id;
  }
}

async function fill(steps: WriteSteps, from: number, to: number): Promise<void> {
  await steps.dataChanged(to);
  await steps.copyData(from, to, await steps.nextStamp(to, false));
}
