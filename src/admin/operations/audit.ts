import { z } from 'zod';
import { type AuditEvent, listAuditEvents } from '../../domain/school/audit-trail.ts';
import { EVENT_TYPES, isEventType } from '../../events/catalogue.ts';
import { defineOperation } from '../define-operation.ts';
import { Id, named, PageQuery, pageOf, RangeQuery, Timestamp } from '../schemas.ts';

/** `type=a,b`: a comma-separated list of catalogue types (unknown names are a 422, not ignored). */
const EventTypeList = z
  .string()
  .max(2000)
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .refine((types) => types.length > 0 && types.length <= 50, 'must name 1 to 50 event types')
  .refine((types) => types.every(isEventType), 'must be event types of the catalogue (docs/webhooks.md)');

const ActorSchema = z.object({
  type: z.enum(['user', 'client', 'system']),
  id: z.string().nullable().describe('The user or client id; null for the system.'),
  client_id: z.string().nullable().describe('The OAuth client a user acted through, if any.'),
});

const AuditEventSchema = named(
  'AuditEvent',
  z.object({
    id: Id.describe('Also the `webhook-id` of its deliveries.'),
    type: z.string().describe(`One of: ${EVENT_TYPES.join(', ')}.`),
    actor: ActorSchema,
    occurred_at: Timestamp,
    data: z.record(z.string(), z.unknown()),
    request_id: z.string().nullable().describe('The request that caused it (`X-Request-Id`).'),
  }),
  'A domain event of the school: one entry of its audit trail.',
);

const presentAuditEvent = (e: AuditEvent) => ({
  id: e.id,
  type: e.type,
  actor: { type: e.actor.type, id: e.actor.id, client_id: e.actor.clientId },
  occurred_at: e.occurredAt,
  data: e.data,
  request_id: e.requestId,
});

const example = {
  id: 'evt_01jf3k6m2v8w9x0y1z2a3b4c5d',
  type: 'enrollment.created',
  actor: { type: 'user', id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d', client_id: 'lectern-admin' },
  occurred_at: '2026-03-01T09:00:00.000Z',
  data: { enrollment_id: 'enr_01jf3k6m2v8w9x0y1z2a3b4c5d', user_id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d' },
  request_id: '6f1c2d4e-0000-4000-8000-000000000000',
};

/** Reading the audit trail: `school:read` (spec §5 scope table). */
export const auditOperations = [
  defineOperation({
    name: 'school.list_audit_events',
    summary: 'List the audit trail',
    description:
      'The school’s domain events, newest first: who changed what, and the request that did it. Filter by `type` (comma-separated), `actor_id`, `actor_type` and an `occurred_at` range; events older than the retention (default 400 days) are pruned.',
    scope: 'school:read',
    method: 'GET',
    path: '/api/v1/audit-events',
    input: {
      query: z
        .strictObject({
          ...PageQuery,
          type: EventTypeList.optional(),
          actor_id: z.string().min(1).max(200).optional(),
          actor_type: z.enum(['user', 'client', 'system']).optional(),
          ...RangeQuery('events'),
        })
        .refine((q) => !q.from || !q.to || q.from < q.to, { message: 'must be before `to`', path: ['from'] }),
    },
    output: pageOf(AuditEventSchema),
    examples: { response: { data: [example], next_cursor: null } },
    handler: async (ctx, { query }) => {
      const page = await listAuditEvents(
        ctx.db,
        ctx.schoolId,
        {
          types: query.type,
          actorId: query.actor_id,
          actorType: query.actor_type,
          from: query.from && new Date(query.from).toISOString(),
          to: query.to && new Date(query.to).toISOString(),
        },
        query,
      );
      return { data: page.data.map(presentAuditEvent), next_cursor: page.next_cursor };
    },
  }),
];
