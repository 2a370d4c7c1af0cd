import { z } from 'zod';
import { newId } from '../crypto/ids.ts';
import { open, seal } from '../crypto/secret-box.ts';
import { Checks, withTransaction } from '../domain/kernel/checks.ts';
import { worded } from '../domain/kernel/fields.ts';
import { type Page, type PageParams, paginate } from '../domain/kernel/pagination.ts';
import { problem, problems } from '../errors/problem-error.ts';
import { isEventPattern } from '../events/catalogue.ts';
import { recordEvent } from '../events/outbox.ts';
import type { Db, Tx } from '../store/database.ts';
import { isoNow, nowMs } from '../store/time.ts';
import { queueDelivery } from './deliveries.ts';
import { checkEndpointUrl, MAX_URL_LENGTH } from './endpoint-url.ts';
import { newWebhookSecret } from './signing.ts';
import type { WebhookEndpointsTable } from './tables.ts';

/** Endpoints a school may have: enough for every integration, few enough to fan out cheaply. */
const MAX_ENDPOINTS_PER_SCHOOL = 20;

/** A webhook endpoint as operators see it (never its secret, but after create and rotate). */
export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Most subscription patterns one endpoint may list. */
export const MAX_EVENT_PATTERNS = 50;

/** Longest endpoint description. */
export const MAX_DESCRIPTION_LENGTH = 500;

/** Subscription patterns: each a deliverable type, `<group>.*` or `*`; 1 to 50 of them. */
const EventPatterns = worded(
  z
    .array(
      z
        .string()
        .max(100)
        .refine(isEventPattern, 'must be a deliverable event type, `<group>.*` or `*` (docs/webhooks.md)'),
    )
    .min(1)
    .max(MAX_EVENT_PATTERNS),
  `must list 1 to ${MAX_EVENT_PATTERNS} event types`,
).describe('Event types to receive: exact types, `<group>.*` (e.g. `enrollment.*`) or `*` for all.');

/**
 * What an endpoint is made of, each rule once: the admin API derives its bodies from these
 * fields, the pages pass what the operator typed, and `createEndpoint`/`updateEndpoint` parse
 * both with them. The URL's address rules need the configuration (loopback `http` outside
 * production), so they follow the field's rule in code (`checkEndpointUrl`), under the same
 * field name.
 */
export const EndpointFields = z.object({
  url: z.string().trim().min(1).max(MAX_URL_LENGTH).describe('HTTPS URL on a public address.'),
  eventTypes: EventPatterns,
  description: z.string().max(MAX_DESCRIPTION_LENGTH).optional(),
  enabled: z.boolean().optional(),
});
export type EndpointInput = z.input<typeof EndpointFields>;

/** The fields of a change: any of them. */
export const EndpointPatchFields = EndpointFields.partial();
export type EndpointPatch = z.input<typeof EndpointPatchFields>;

/** What endpoint changes need from the configuration. */
export interface EndpointSettings {
  /** LECTERN_SECRET: seals the signing secrets at rest. */
  readonly key: Uint8Array;
  readonly allowLoopbackHttp: boolean;
  readonly secretOverlapSeconds: number;
}

function toEndpoint(row: WebhookEndpointsTable, now = isoNow()): WebhookEndpoint {
  const overlap = row.previous_secret_expires_at;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: JSON.parse(row.event_types) as string[],
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    previousSecretExpiresAt: overlap && overlap > now ? overlap : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const sealed = (key: Uint8Array, id: string, secret: string) => seal(key, secret, `webhook:${id}`);

/** The secrets that sign a delivery now: the current one, and the previous during its overlap. */
export function liveSecrets(row: WebhookEndpointsTable, key: Uint8Array, now: string): string[] {
  const secrets = [open(key, row.secret, `webhook:${row.id}`)];
  if (row.previous_secret && row.previous_secret_expires_at && row.previous_secret_expires_at > now) {
    secrets.push(open(key, row.previous_secret, `webhook:${row.id}`));
  }
  return secrets;
}

/**
 * Parses an endpoint's input with its fields, then its URL's address rules, and throws one 422
 * `validation_failed` naming every failing field (`url`, `eventTypes.0`, `description`).
 */
function parseEndpoint<S extends typeof EndpointFields | typeof EndpointPatchFields>(
  fields: S,
  input: object,
  allowLoopbackHttp: boolean,
): z.output<S> {
  const c = new Checks();
  const parsed: { url?: string } = c.parse(fields, input);
  if (parsed.url !== undefined) {
    const checked = checkEndpointUrl(parsed.url, allowLoopbackHttp);
    if (checked.ok) parsed.url = checked.url;
    else c.fail('url', checked.message);
  }
  c.done();
  return parsed as z.output<S>;
}

async function endpointRow(db: Db | Tx, schoolId: string, id: string): Promise<WebhookEndpointsTable> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such webhook endpoint.');
  return row;
}

export async function getEndpoint(db: Db | Tx, schoolId: string, id: string): Promise<WebhookEndpoint> {
  return toEndpoint(await endpointRow(db, schoolId, id));
}

export async function listEndpoints(
  db: Db | Tx,
  schoolId: string,
  page: PageParams,
): Promise<Page<WebhookEndpoint>> {
  const query = db.selectFrom('webhook_endpoints').selectAll().where('school_id', '=', schoolId);
  const rows = await paginate(query, page, { table: 'webhook_endpoints' });
  const now = isoNow();
  return { data: rows.data.map((r) => toEndpoint(r, now)), next_cursor: rows.next_cursor };
}

/** Adds an endpoint; its `whsec_` secret is returned this once (only a sealed copy is kept). */
export async function createEndpoint(
  db: Db | Tx,
  schoolId: string,
  input: EndpointInput,
  settings: EndpointSettings,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const { url, eventTypes, description, enabled } = parseEndpoint(
    EndpointFields,
    input,
    settings.allowLoopbackHttp,
  );
  const secret = newWebhookSecret();
  const id = newId('whe');
  const now = isoNow();
  return withTransaction(db, async (tx) => {
    const count = await tx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('school_id', '=', schoolId)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_ENDPOINTS_PER_SCHOOL) {
      throw problem('too_many_endpoints', {
        detail: `A school can have at most ${MAX_ENDPOINTS_PER_SCHOOL} webhook endpoints.`,
      });
    }
    const row: WebhookEndpointsTable = {
      id,
      school_id: schoolId,
      url,
      description: description ?? '',
      event_types: JSON.stringify(eventTypes),
      enabled: enabled === false ? 0 : 1,
      disabled_reason: null,
      secret: sealed(settings.key, id, secret),
      previous_secret: null,
      previous_secret_expires_at: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
    };
    await tx.insertInto('webhook_endpoints').values(row).execute();
    await recordEvent(tx, schoolId, 'webhook_endpoint.created', {
      endpoint_id: id,
      url,
      event_types: eventTypes,
    });
    return { endpoint: toEndpoint(row, now), secret };
  });
}

/** Changes an endpoint. Enabling it again clears why Lectern disabled it and its failing streak. */
export async function updateEndpoint(
  db: Db | Tx,
  schoolId: string,
  id: string,
  input: EndpointPatch,
  settings: EndpointSettings,
): Promise<WebhookEndpoint> {
  const patch = parseEndpoint(EndpointPatchFields, input, settings.allowLoopbackHttp);
  const set: Partial<WebhookEndpointsTable> = {};
  if (patch.url !== undefined) set.url = patch.url;
  if (patch.eventTypes !== undefined) set.event_types = JSON.stringify(patch.eventTypes);
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.enabled !== undefined) {
    set.enabled = patch.enabled ? 1 : 0;
    set.disabled_reason = null;
    if (patch.enabled) set.failing_since = null;
  }
  return withTransaction(db, async (tx) => {
    await endpointRow(tx, schoolId, id);
    await tx
      .updateTable('webhook_endpoints')
      .set({ ...set, updated_at: isoNow() })
      .where('school_id', '=', schoolId)
      .where('id', '=', id)
      .execute();
    await recordEvent(tx, schoolId, 'webhook_endpoint.updated', {
      endpoint_id: id,
      changed: Object.keys(patch).filter((k) => patch[k as keyof typeof patch] !== undefined),
    });
    return getEndpoint(tx, schoolId, id);
  });
}

export async function deleteEndpoint(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await withTransaction(db, async (tx) => {
    const row = await endpointRow(tx, schoolId, id);
    await tx.deleteFrom('webhook_endpoints').where('school_id', '=', schoolId).where('id', '=', id).execute();
    await recordEvent(tx, schoolId, 'webhook_endpoint.deleted', { endpoint_id: id, url: row.url });
  });
}

/**
 * Replaces the signing secret. The old one keeps signing beside the new one (two signatures in
 * `webhook-signature`) for the configured overlap, so receivers can switch without a gap.
 */
export async function rotateEndpointSecret(
  db: Db | Tx,
  schoolId: string,
  id: string,
  settings: EndpointSettings,
  now: number = nowMs(),
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const secret = newWebhookSecret();
  return withTransaction(db, async (tx) => {
    const row = await endpointRow(tx, schoolId, id);
    const expires =
      settings.secretOverlapSeconds > 0 ? isoNow(now + settings.secretOverlapSeconds * 1000) : null;
    await tx
      .updateTable('webhook_endpoints')
      .set({
        secret: sealed(settings.key, id, secret),
        previous_secret: expires ? row.secret : null,
        previous_secret_expires_at: expires,
        updated_at: isoNow(now),
      })
      .where('id', '=', id)
      .execute();
    await recordEvent(tx, schoolId, 'webhook_endpoint.secret_rotated', {
      endpoint_id: id,
      previous_secret_expires_at: expires,
    });
    return { endpoint: await getEndpoint(tx, schoolId, id), secret };
  });
}

/** Sends a `webhook.test` event to this endpoint only; 409 `endpoint_disabled` when it is off. */
export async function sendTestEvent(db: Db | Tx, schoolId: string, id: string): Promise<{ eventId: string }> {
  return withTransaction(db, async (tx) => {
    const row = await endpointRow(tx, schoolId, id);
    if (row.enabled !== 1) {
      throw problem('endpoint_disabled', { detail: 'Enable the endpoint before sending it a test event.' });
    }
    // An audit-only event, so no fan-out: its one delivery goes to this endpoint alone.
    const now = isoNow();
    const eventId = await recordEvent(tx, schoolId, 'webhook.test', { endpoint_id: id }, { occurredAt: now });
    await queueDelivery(tx, schoolId, id, eventId, now);
    return { eventId };
  });
}
