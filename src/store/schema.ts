import type { PaymentTables } from '../domain/commerce/payment-tables.ts';
import type { DomainTables } from '../domain/kernel/tables.ts';
import type { EventTables } from '../events/tables.ts';
import type { OAuthTables } from '../oauth/tables.ts';
import type { WebhookTables } from '../webhooks/tables.ts';

/** The whole database as Kysely sees it: each feature contributes its own tables. */
export interface Database extends DomainTables, PaymentTables, OAuthTables, EventTables, WebhookTables {}
