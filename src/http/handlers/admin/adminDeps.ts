import type { Context as ApiContext } from 'openapi-backend';
import type { AdminStore } from '../../../store/store.js';
import type { PublicBaseConfig } from '../../publicBase.js';

/** What the administration API's handlers are given once, at start-up (../../adminApi.ts). */
export interface AdminDeps {
  store: AdminStore;
  /** How the `next` of a listing gets its base (`--public-url`, `--trust-proxy`), as the public API's does. */
  publicBase: PublicBaseConfig;
  /** A sandbox's time to live when its request sets none (`serve --sandbox-ttl`). */
  sandboxTtlSeconds: number;
}

/** A path parameter as routed and validated against openapi/admin.yaml. */
export const pathParam = (api: ApiContext, name: string): string => String((api.request.params as Record<string, unknown>)[name]);
