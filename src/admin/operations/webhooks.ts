import { z } from 'zod';
import { declare } from '../../domain/kernel/field-meta.ts';
import { DELIVERABLE_EVENT_TYPES, EVENT_CATALOGUE, EVENT_TYPES } from '../../events/catalogue.ts';
import { listAttempts, replay, type WebhookAttempt } from '../../webhooks/delivery-log.ts';
import {
  createEndpoint,
  deleteEndpoint,
  EndpointFields,
  EndpointPatchFields,
  type EndpointSettings,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
  type WebhookEndpoint,
} from '../../webhooks/endpoints.ts';
import type { OperationContext } from '../define-operation.ts';
import { defineOperation } from '../define-operation.ts';
import { bodyOf, Id, named, PageQuery, pageOf, Timestamp, toCamel } from '../schemas.ts';

const EndpointSchema = named(
  'WebhookEndpoint',
  z.object({
    id: Id,
    url: declare(z.string(), { kind: 'url' }),
    description: z.string(),
    event_types: z.array(z.string()),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().describe('Why Lectern disabled it (410 Gone, failing for days).'),
    failing_since: Timestamp.nullable().describe('First failed attempt since the last success.'),
    previous_secret_expires_at: Timestamp.nullable().describe(
      'After a rotation: until when the old secret still signs beside the new one.',
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A URL that receives the school’s events, signed the Standard Webhooks way.',
);

const WithSecret = named(
  'WebhookEndpointWithSecret',
  EndpointSchema.extend({
    secret: z.string().describe('The `whsec_` signing secret. Shown this once: store it now.'),
  }),
  'An endpoint just created or rotated, with its signing secret.',
);

const AttemptSchema = named(
  'WebhookAttempt',
  z.object({
    id: Id,
    delivery_id: Id,
    event_id: Id,
    event_type: z.string(),
    attempted_at: Timestamp,
    status_code: z.number().int().nullable(),
    latency_ms: z.number().int(),
    response_excerpt: z.string().describe('The first 1,024 characters of the answer.'),
    error: z.string().nullable().describe('Timeout, refused connection, redirect, blocked address…'),
    next_retry_at: Timestamp.nullable(),
  }),
  'One delivery attempt of an event to an endpoint.',
);

const present = (e: WebhookEndpoint) => ({
  id: e.id,
  url: e.url,
  description: e.description,
  event_types: e.eventTypes,
  enabled: e.enabled,
  disabled_reason: e.disabledReason,
  failing_since: e.failingSince,
  previous_secret_expires_at: e.previousSecretExpiresAt,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});

const presentAttempt = (a: WebhookAttempt) => ({
  id: a.id,
  delivery_id: a.deliveryId,
  event_id: a.eventId,
  event_type: a.eventType,
  attempted_at: a.attemptedAt,
  status_code: a.statusCode,
  latency_ms: a.latencyMs,
  response_excerpt: a.responseExcerpt,
  error: a.error,
  next_retry_at: a.nextRetryAt,
});

const settings = (ctx: OperationContext): EndpointSettings => ({
  key: ctx.app.config.secret,
  allowLoopbackHttp: ctx.app.config.webhooks.allowLoopbackHttp,
  secretOverlapSeconds: ctx.app.config.webhooks.secretOverlapSeconds,
});

const ById = z.strictObject({ endpoint_id: Id });
const path = '/api/v1/webhook-endpoints';

const example = {
  id: 'whe_01jf3k6m2v8w9x0y1z2a3b4c5d',
  url: 'https://hooks.example.com/lectern',
  description: 'CRM sync',
  event_types: ['enrollment.*', 'order.paid'],
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  previous_secret_expires_at: null,
  created_at: '2026-03-01T09:00:00.000Z',
  updated_at: '2026-03-01T09:00:00.000Z',
};

/** Webhook endpoints: read under `school:read`, managed under `school:write`. */
export const webhookOperations = [
  defineOperation({
    name: 'school.list_event_types',
    summary: 'List the event types',
    description: 'Every domain event type, what it means, and whether endpoints may subscribe to it.',
    scope: 'school:read',
    method: 'GET',
    path: '/api/v1/event-types',
    input: {},
    output: z.object({
      data: z.array(z.object({ type: z.string(), description: z.string(), deliverable: z.boolean() })),
    }),
    examples: {
      response: {
        data: [
          {
            type: 'enrollment.created',
            description: 'A member was enrolled in a course.',
            deliverable: true,
          },
        ],
      },
    },
    handler: async () => ({
      data: EVENT_TYPES.map((type) => ({
        type,
        description: EVENT_CATALOGUE[type].description,
        deliverable: DELIVERABLE_EVENT_TYPES.includes(type),
      })),
    }),
  }),
  defineOperation({
    name: 'school.list_webhook_endpoints',
    summary: 'List webhook endpoints',
    scope: 'school:read',
    method: 'GET',
    path,
    input: { query: z.strictObject({ ...PageQuery }) },
    output: pageOf(EndpointSchema),
    examples: { response: { data: [example], next_cursor: null } },
    handler: async (ctx, { query }) => {
      const page = await listEndpoints(ctx.db, ctx.schoolId, query);
      return { data: page.data.map(present), next_cursor: page.next_cursor };
    },
  }),
  defineOperation({
    name: 'school.get_webhook_endpoint',
    summary: 'Get a webhook endpoint',
    scope: 'school:read',
    method: 'GET',
    path: `${path}/{endpoint_id}`,
    input: { params: ById },
    output: EndpointSchema,
    examples: { response: example },
    handler: async (ctx, { params }) => present(await getEndpoint(ctx.db, ctx.schoolId, params.endpoint_id)),
  }),
  defineOperation({
    name: 'school.create_webhook_endpoint',
    summary: 'Add a webhook endpoint',
    description:
      'The answer carries the `whsec_` signing secret, shown this once. The URL must be HTTPS to a public address (loopback `http` is allowed outside production only). At most 20 endpoints per school (409 `too_many_endpoints`).',
    scope: 'school:write',
    method: 'POST',
    path,
    input: { body: bodyOf(EndpointFields) },
    output: WithSecret,
    status: 201,
    examples: {
      request: { url: 'https://hooks.example.com/lectern', event_types: ['enrollment.*', 'order.paid'] },
      response: { ...example, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    },
    handler: async (ctx, { body }) => {
      const { endpoint, secret } = await createEndpoint(ctx.db, ctx.schoolId, toCamel(body), settings(ctx));
      return { ...present(endpoint), secret };
    },
  }),
  defineOperation({
    name: 'school.update_webhook_endpoint',
    summary: 'Change a webhook endpoint',
    description: 'Enabling an endpoint Lectern disabled clears the reason; its pending deliveries resume.',
    scope: 'school:write',
    method: 'PATCH',
    path: `${path}/{endpoint_id}`,
    input: { params: ById, body: bodyOf(EndpointPatchFields) },
    output: EndpointSchema,
    examples: { request: { enabled: true } },
    handler: async (ctx, { params, body }) =>
      present(await updateEndpoint(ctx.db, ctx.schoolId, params.endpoint_id, toCamel(body), settings(ctx))),
  }),
  defineOperation({
    name: 'school.delete_webhook_endpoint',
    summary: 'Delete a webhook endpoint',
    description: 'Its pending deliveries and its log go with it.',
    scope: 'school:write',
    method: 'DELETE',
    path: `${path}/{endpoint_id}`,
    input: { params: ById },
    handler: async (ctx, { params }) => deleteEndpoint(ctx.db, ctx.schoolId, params.endpoint_id),
  }),
  defineOperation({
    name: 'school.rotate_webhook_secret',
    summary: 'Rotate an endpoint’s signing secret',
    description:
      'Returns the new secret once. The old one keeps signing beside it (two `v1,` signatures) until `previous_secret_expires_at` (WEBHOOK_SECRET_OVERLAP_HOURS, default 24).',
    scope: 'school:write',
    method: 'POST',
    path: `${path}/{endpoint_id}/rotate-secret`,
    input: { params: ById },
    output: WithSecret,
    examples: {
      response: {
        ...example,
        previous_secret_expires_at: '2026-03-02T09:00:00.000Z',
        secret: 'whsec_T2F5nHqvqU0Zt6mLBeHdLUvXg8rJgkVh',
      },
    },
    handler: async (ctx, { params }) => {
      const { endpoint, secret } = await rotateEndpointSecret(
        ctx.db,
        ctx.schoolId,
        params.endpoint_id,
        settings(ctx),
      );
      return { ...present(endpoint), secret };
    },
  }),
  defineOperation({
    name: 'school.send_test_webhook',
    summary: 'Send a test event',
    description:
      'Queues a `webhook.test` event for this endpoint only (409 `endpoint_disabled` when it is off).',
    scope: 'school:write',
    method: 'POST',
    path: `${path}/{endpoint_id}/test`,
    input: { params: ById },
    output: z.object({ event_id: Id }),
    status: 202,
    examples: { response: { event_id: 'evt_01jf3k6m2v8w9x0y1z2a3b4c5d' } },
    handler: async (ctx, { params }) => ({
      event_id: (await sendTestEvent(ctx.db, ctx.schoolId, params.endpoint_id)).eventId,
    }),
  }),
  defineOperation({
    name: 'school.replay_webhooks',
    summary: 'Replay events to an endpoint',
    description:
      'Give `event_id` to send one event again, or `since` to send every subscribed event from then on (at most 10,000 per call). Replays keep the event id as `webhook-id`.',
    scope: 'school:write',
    method: 'POST',
    path: `${path}/{endpoint_id}/replay`,
    input: {
      params: ById,
      body: z
        .strictObject({ event_id: Id.optional(), since: Timestamp.optional() })
        .refine((b) => (b.event_id === undefined) !== (b.since === undefined), {
          message: 'give exactly one of event_id and since',
          path: ['event_id'],
        }),
    },
    output: z.object({ queued: z.number().int() }),
    status: 202,
    examples: { request: { since: '2026-03-01T00:00:00Z' }, response: { queued: 42 } },
    handler: async (ctx, { params, body }) =>
      replay(ctx.db, ctx.schoolId, params.endpoint_id, {
        eventId: body.event_id,
        since: body.since && new Date(body.since).toISOString(),
      }),
  }),
  defineOperation({
    name: 'school.list_webhook_attempts',
    summary: 'List an endpoint’s delivery attempts',
    description: 'Newest first: status, latency, the start of the answer, and when the next retry is due.',
    scope: 'school:read',
    method: 'GET',
    path: `${path}/{endpoint_id}/attempts`,
    input: { params: ById, query: z.strictObject({ ...PageQuery }) },
    output: pageOf(AttemptSchema),
    examples: {
      response: {
        data: [
          {
            id: 'wha_01jf3k6m2v8w9x0y1z2a3b4c5d',
            delivery_id: 'whd_01jf3k6m2v8w9x0y1z2a3b4c5d',
            event_id: 'evt_01jf3k6m2v8w9x0y1z2a3b4c5d',
            event_type: 'order.paid',
            attempted_at: '2026-03-01T09:00:01.000Z',
            status_code: 503,
            latency_ms: 212,
            response_excerpt: 'upstream unavailable',
            error: null,
            next_retry_at: '2026-03-01T09:05:01.000Z',
          },
        ],
        next_cursor: null,
      },
    },
    handler: async (ctx, { params, query }) => {
      const page = await listAttempts(ctx.db, ctx.schoolId, params.endpoint_id, query);
      return { data: page.data.map(presentAttempt), next_cursor: page.next_cursor };
    },
  }),
];
