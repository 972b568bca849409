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
  sandboxLimits: SandboxLimits;
  /** Webhook endpoints may have loopback, private and link-local URLs (`serve --webhook-allow-private`). */
  webhookAllowPrivate: boolean;
  /** A change of statuses wrote webhook calls: this server's delivery worker is nudged (docs/administration.md#delivery). */
  callsWritten: () => void;
}

/** The limits on sandboxes (docs/administration.md#limits): `serve --max-sandboxes`, `--max-sandbox-records`. */
export interface SandboxLimits {
  /** How many sandboxes may exist at once. */
  readonly maxSandboxes: number;
  /** The most records (reporting records and data table records together) a template copied may have. */
  readonly maxRecords: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { maxSandboxes: 1000, maxRecords: 1_000_000 };

/** A path parameter as routed and validated against openapi/admin.yaml. */
export const pathParam = (api: ApiContext, name: string): string => String((api.request.params as Record<string, unknown>)[name]);
