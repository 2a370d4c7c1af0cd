import { z } from 'zod';
import {
  cancelRegistration,
  type EventRegistration,
  getRegistration,
  listEventRegistrations,
} from '../../domain/community/event-registrations.ts';
import {
  createEvent,
  deleteEvent,
  EVENT_STATUSES,
  EVENT_VISIBILITIES,
  type Event,
  EventCreate,
  EventPatch,
  getEvent,
  listEvents,
  updateEvent,
} from '../../domain/community/events.ts';
import { declare } from '../../domain/kernel/field-meta.ts';
import { mapPage } from '../../domain/kernel/pagination.ts';
import { problems } from '../../errors/problem-error.ts';
import { defineOperation } from '../define-operation.ts';
import { bodyOf, Id, named, PageQuery, pageOf, QueryBool, Timestamp, toCamel, toSnake } from '../schemas.ts';

const EventSchema = named(
  'Event',
  z.object({
    id: Id,
    title: z.string(),
    description: declare(z.string(), { kind: 'long_text' }),
    starts_at: Timestamp,
    ends_at: Timestamp,
    capacity: z.number().int().nullable().describe('Null: unlimited.'),
    registered_count: z.number().int(),
    spots_left: z.number().int().nullable(),
    online_url: declare(z.string(), { kind: 'url' }).nullable(),
    location: z.string().nullable(),
    visibility: z.enum(EVENT_VISIBILITIES),
    status: z.enum(EVENT_STATUSES),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A live event.',
);
const RegistrationSchema = named(
  'EventRegistration',
  z.object({
    id: Id,
    event_id: Id,
    user_id: Id,
    event: z.object({ id: Id, title: z.string(), starts_at: Timestamp, ends_at: Timestamp }),
    user: z.object({ id: Id, name: z.string(), email: z.string() }),
    status: z.enum(['registered', 'canceled', 'attended']),
    registered_at: Timestamp,
    canceled_at: Timestamp.nullable(),
  }),
  'A person’s seat at an event.',
);
const present = (e: Event) => toSnake(e);
const presentRegistration = (r: EventRegistration) => ({ ...toSnake(r), event: toSnake(r.event, []) });

const instants = { starts_at: Timestamp, ends_at: Timestamp };
const ById = z.strictObject({ event_id: Id });
const example = {
  id: 'evt_01jf3k6m2v8w9x0y1z2a3b4c5d',
  title: 'Live Q&A',
  description: 'Bring your paintings.',
  starts_at: '2026-04-02T17:00:00.000Z',
  ends_at: '2026-04-02T18:00:00.000Z',
  capacity: 50,
  registered_count: 12,
  spots_left: 38,
  online_url: 'https://meet.example/qa',
  location: null,
  visibility: 'members',
  status: 'scheduled',
  created_at: '2026-03-01T09:00:00.000Z',
  updated_at: '2026-03-01T09:00:00.000Z',
};

const get = defineOperation({
  name: 'events.get',
  summary: 'Get an event',
  scope: 'events:read',
  method: 'GET',
  path: '/api/v1/events/{event_id}',
  input: { params: ById },
  output: EventSchema,
  etag: true,
  examples: { response: example },
  handler: async (ctx, { params }) => present(await getEvent(ctx.db, ctx.schoolId, params.event_id)),
});

/** Event operations and registrations. */
export const eventOperations = [
  defineOperation({
    name: 'events.list',
    summary: 'List events',
    description:
      'Events by start time; `ends_after` (e.g. now, for upcoming) and `starts_before` bound the window.',
    scope: 'events:read',
    method: 'GET',
    path: '/api/v1/events',
    input: {
      query: z.strictObject({
        ...PageQuery,
        ends_after: Timestamp.optional(),
        starts_before: Timestamp.optional(),
        status: z.enum(EVENT_STATUSES).optional(),
        visibility: z.enum(EVENT_VISIBILITIES).optional(),
      }),
    },
    output: pageOf(EventSchema),
    handler: async (ctx, { query }) => {
      const page = await listEvents(
        ctx.db,
        ctx.schoolId,
        {
          endsAfter: query.ends_after,
          startsBefore: query.starts_before,
          status: query.status,
          visibility: query.visibility,
        },
        query,
      );
      return mapPage(page, present);
    },
  }),
  get,
  defineOperation({
    name: 'events.create',
    summary: 'Create an event',
    description: 'Give an `online_url`, a `location`, or both. `ends_at` must be after `starts_at`.',
    scope: 'events:write',
    method: 'POST',
    path: '/api/v1/events',
    input: {
      body: bodyOf(EventCreate, instants),
    },
    output: EventSchema,
    status: 201,
    etag: true,
    examples: {
      request: {
        title: 'Live Q&A',
        starts_at: '2026-04-02T17:00:00Z',
        ends_at: '2026-04-02T18:00:00Z',
        capacity: 50,
        online_url: 'https://meet.example/qa',
      },
      response: example,
    },
    handler: async (ctx, { body }) => present(await createEvent(ctx.db, ctx.schoolId, toCamel(body))),
  }),
  defineOperation({
    name: 'events.update',
    summary: 'Update an event',
    description: 'Capacity cannot drop below the current registrations. Cancel with `status: canceled`.',
    scope: 'events:write',
    method: 'PATCH',
    path: '/api/v1/events/{event_id}',
    input: { params: ById, body: bodyOf(EventPatch, instants) },
    output: EventSchema,
    etag: true,
    current: get.handler,
    handler: async (ctx, { params, body }) =>
      present(await updateEvent(ctx.db, ctx.schoolId, params.event_id, toCamel(body))),
  }),
  defineOperation({
    name: 'events.delete',
    summary: 'Delete an event',
    description: 'Deletes the event and its registrations; prefer `status: canceled` to tell registrants.',
    scope: 'events:write',
    method: 'DELETE',
    path: '/api/v1/events/{event_id}',
    input: { params: ById },
    handler: async (ctx, { params }) => deleteEvent(ctx.db, ctx.schoolId, params.event_id),
  }),
  defineOperation({
    name: 'events.list_registrations',
    summary: 'List an event’s registrations',
    scope: 'events:read',
    method: 'GET',
    path: '/api/v1/events/{event_id}/registrations',
    input: { params: ById, query: z.strictObject({ ...PageQuery, active_only: QueryBool }) },
    output: pageOf(RegistrationSchema),
    handler: async (ctx, { params, query }) => {
      const page = await listEventRegistrations(ctx.db, ctx.schoolId, params.event_id, query, {
        activeOnly: query.active_only,
      });
      return mapPage(page, presentRegistration);
    },
  }),
  defineOperation({
    name: 'events.cancel_registration',
    summary: 'Cancel a registration',
    description: 'Frees the seat. Canceling twice returns the canceled registration.',
    scope: 'events:write',
    method: 'POST',
    path: '/api/v1/events/{event_id}/registrations/{registration_id}/cancel',
    input: { params: z.strictObject({ event_id: Id, registration_id: Id }) },
    output: RegistrationSchema,
    annotations: { destructive: true, idempotent: true },
    examples: {
      response: {
        id: 'reg_01jf3k6m2v8w9x0y1z2a3b4c5d',
        event_id: example.id,
        user_id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d',
        event: {
          id: example.id,
          title: example.title,
          starts_at: example.starts_at,
          ends_at: example.ends_at,
        },
        user: { id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d', name: 'Sam', email: 'sam@example.com' },
        status: 'canceled',
        registered_at: '2026-03-01T09:00:00.000Z',
        canceled_at: '2026-03-02T10:00:00.000Z',
      },
    },
    handler: async (ctx, { params }) => {
      const registration = await getRegistration(ctx.db, ctx.schoolId, params.registration_id);
      if (registration.eventId !== params.event_id)
        throw problems.notFound('No such registration for this event.');
      return presentRegistration(await cancelRegistration(ctx.db, ctx.schoolId, params.registration_id));
    },
  }),
];
