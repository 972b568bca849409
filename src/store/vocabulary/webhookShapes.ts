import type { StatementStatus } from '../../domain/statements.js';
import type { WebhookFaults } from '../../domain/webhookFaults.js';

/** The events a webhook endpoint may want (docs/administration.md#webhook-endpoints). */
const WEBHOOK_EVENTS = ['statement.sent_to_payroll'] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A tenant's webhook endpoint as listed: never its secrets. */
export interface WebhookEndpoint {
  readonly id: string;
  readonly url: string;
  readonly events: WebhookEvent[];
  readonly enabled: boolean;
  /** Whether its calls carry the `X-Webhook-Secret` header. */
  readonly secretHeader: boolean;
  readonly createdAt: string;
  /** Until when the secrets replaced by the last rotation stay valid; `null` when none do. */
  readonly previousUntil: string | null;
  /** The faults its calls meet, for a receiver's tests (all off by default). */
  readonly faults: WebhookFaults;
}

/** What an endpoint is made with, or changed by (an update: only the fields given). */
export interface EndpointSettings {
  url: string;
  events: WebhookEvent[];
  enabled: boolean;
  secretHeader: boolean;
  faults: WebhookFaults;
}

/** The two secrets of an endpoint, shown once: at creation and at rotation. */
export interface WebhookSecrets {
  /** The value of the `X-Webhook-Secret` header. */
  readonly secret: string;
  /** The Standard Webhooks signing secret: `whsec_` and base64. */
  readonly signingSecret: string;
}

/** A statement named by its user (e-mail address) and month (index). */
export interface StatementRef {
  readonly user: string;
  readonly month: number;
}

/** Which statements a change of status takes: those listed, or every one of a user or of a period that the lifecycle lets change. */
export type StatementSelection =
  | { readonly statements: readonly StatementRef[] }
  | { readonly user: string }
  | { readonly period: { readonly start: number; readonly end: number } };

/** A statement whose status changed, or would have to. */
export interface StatementStatusChange {
  /** `stm_` and 12 hex digits (domain/statements.ts). */
  readonly id: string;
  readonly user: string;
  readonly month: number;
  readonly from: StatementStatus;
  readonly to: StatementStatus;
}

/**
 * What a change of statuses came to: `changed` (with the calls written to the outbox), or
 * nothing changed because a statement listed does not exist (`missing`), the user named has no
 * account (`unknownUser`), or the lifecycle refuses a change (`refused`, every one of them).
 */
export type StatusChangeOutcome =
  | { readonly outcome: 'changed'; readonly changes: StatementStatusChange[]; readonly calls: number }
  | { readonly outcome: 'refused'; readonly changes: StatementStatusChange[] }
  | { readonly outcome: 'missing'; readonly statement: StatementRef }
  | { readonly outcome: 'unknownUser' | 'unknownTenant' };
