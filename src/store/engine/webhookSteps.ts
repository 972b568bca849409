import type { StatementStatus } from '../../domain/statements.js';
import type { Answer } from '../vocabulary/answer.js';
import type { CallLogSteps } from './callLogSteps.js';
import type { EndpointSettings, WebhookEndpoint, WebhookEvent, WebhookSecrets } from '../vocabulary/webhookShapes.js';

/** A stored statement as a change of status reads it. */
export interface StoredStatement {
  readonly userPk: number;
  readonly userId: string;
  readonly email: string;
  readonly month: number;
  readonly status: StatementStatus;
}

/** A call written to the outbox: its `webhook-id`, endpoint, event and statement (by its user's id and month). */
interface NewWebhookCall {
  readonly id: string;
  readonly endpointId: string;
  readonly event: WebhookEvent;
  readonly userId: string;
  readonly month: number;
  readonly createdAt: string;
}

/** The steps of changing a tenant's statements' statuses, inside the caller's write transaction. */
export interface StatusChangeSteps {
  /** The statement of the user (by e-mail key, ASCII lower case) in the month, if stored. */
  statementOf(emailKey: string, month: number): Answer<StoredStatement | undefined>;
  /** Whether the tenant has a user with this e-mail key. */
  hasUser(emailKey: string): Answer<boolean>;
  /** The user's statements of status `status`, by month. */
  statementsOfUser(emailKey: string, status: StatementStatus): Answer<StoredStatement[]>;
  /** The statements of status `status` in the months `start` to `end`, by user (e-mail key) and month. */
  statementsInPeriod(start: number, end: number, status: StatementStatus): Answer<StoredStatement[]>;
  /** The ids of the enabled endpoints that want `event`, by id. */
  endpointsWanting(event: WebhookEvent): Answer<string[]>;
  /** Writes calls to the outbox, pending and due now, after every call of the tenant before them. */
  insertCalls(calls: readonly NewWebhookCall[]): Answer<void>;
}

/** A tenant's webhook endpoints and the log of their calls, inside the caller's write transaction. */
export interface WebhookSteps extends CallLogSteps {
  insertEndpoint(endpoint: EndpointSettings & WebhookSecrets & { id: string; createdAt: string }): Answer<void>;
  endpoints(): Answer<WebhookEndpoint[]>;
  endpoint(id: string): Answer<WebhookEndpoint | undefined>;
  /** Writes the settings given; false when the tenant has no such endpoint. */
  updateEndpoint(id: string, settings: Partial<EndpointSettings>): Answer<boolean>;
  /** Deletes the endpoint with its calls; false when the tenant has no such endpoint. */
  deleteEndpoint(id: string): Answer<boolean>;
  /** Puts new secrets in place, the current ones kept valid until `previousUntil`; false when no such endpoint. */
  rotateSecrets(id: string, secrets: WebhookSecrets, previousUntil: string): Answer<boolean>;
  /** Deletes the tenant's calls not yet delivered nor failed (a sandbox's reset). */
  dropPendingCalls(): Answer<void>;
}
