import { sql } from 'kysely';
import { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { columnsOf } from '../kernel/case.ts';
import { deleteOwned, parseValid } from '../kernel/checks.ts';
import { declare } from '../kernel/field-meta.ts';
import { HttpUrl, Instant, Text } from '../kernel/fields.ts';
import { countRows, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { EventsTable } from '../kernel/tables.ts';

export const EVENT_VISIBILITIES = ['public', 'members'] as const;
export const EVENT_STATUSES = ['scheduled', 'canceled'] as const;

/** A live session or meetup; registeredCount counts active registrations. */
export interface Event {
  id: string;
  schoolId: string;
  title: string;
  description: string;
  startsAt: string;
  endsAt: string;
  /** Null means unlimited. */
  capacity: number | null;
  registeredCount: number;
  /** Null when capacity is unlimited. */
  spotsLeft: number | null;
  onlineUrl: string | null;
  location: string | null;
  visibility: (typeof EVENT_VISIBILITIES)[number];
  status: (typeof EVENT_STATUSES)[number];
  createdAt: string;
  updatedAt: string;
}

/** An event's fields as a client writes them: each rule once (the admin API derives its bodies). */
const EventFields = z.object({
  title: Text(200),
  description: declare(z.string().max(20_000), { kind: 'long_text' }),
  startsAt: Instant,
  endsAt: Instant,
  /** Null means unlimited. */
  capacity: z.number().int().min(1).max(1_000_000).nullable(),
  onlineUrl: HttpUrl.nullable(),
  location: z.string().max(500).nullable(),
  visibility: z.enum(EVENT_VISIBILITIES),
  status: z.enum(EVENT_STATUSES),
});

/** A new event: title and window; public, scheduled and unlimited unless said otherwise. */
export const EventCreate = EventFields.partial({
  description: true,
  capacity: true,
  onlineUrl: true,
  location: true,
  visibility: true,
  status: true,
});
export type EventInput = z.input<typeof EventCreate>;

/** A change to an event: any of its fields. */
export const EventPatch = EventFields.partial();

/** Which events to list: a window of instants, status and visibility. */
const EventFilterFields = z
  .object({
    /** Events ending after this instant (e.g. now: upcoming and running). */
    endsAfter: Instant,
    /** Events starting before this instant. */
    startsBefore: Instant,
    status: z.enum(EVENT_STATUSES),
    visibility: z.enum(EVENT_VISIBILITIES),
  })
  .partial();
export type EventFilter = z.input<typeof EventFilterFields>;

type Row = EventsTable & { registered_count: number | string | null };

function toEvent(r: Row): Event {
  const registered = Number(r.registered_count);
  return {
    id: r.id,
    schoolId: r.school_id,
    title: r.title,
    description: r.description,
    startsAt: r.starts_at,
    endsAt: r.ends_at,
    capacity: r.capacity,
    registeredCount: registered,
    spotsLeft: r.capacity === null ? null : Math.max(0, r.capacity - registered),
    onlineUrl: r.online_url,
    location: r.location,
    visibility: r.visibility,
    status: r.status,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function eventQuery(db: Db | Tx, schoolId: string) {
  return db
    .selectFrom('events')
    .selectAll('events')
    .select((eb) =>
      eb
        .selectFrom('event_registrations')
        .select(sql<number>`count(*)`.as('n'))
        .whereRef('event_registrations.event_id', '=', 'events.id')
        .where('event_registrations.status', '!=', 'canceled')
        .as('registered_count'),
    )
    .where('events.school_id', '=', schoolId);
}

/** Events of the school by id, keyed by id: one query for any number (unknown ids are absent). */
export async function findEvents(
  db: Db | Tx,
  schoolId: string,
  ids: readonly string[],
): Promise<Map<string, Event>> {
  if (ids.length === 0) return new Map();
  const rows = await eventQuery(db, schoolId)
    .where('events.id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, toEvent(r)]));
}

function filtered(db: Db | Tx, schoolId: string, filter: EventFilter) {
  let q = eventQuery(db, schoolId);
  if (filter.endsAfter) q = q.where('events.ends_at', '>', filter.endsAfter);
  if (filter.startsBefore) q = q.where('events.starts_at', '<', filter.startsBefore);
  if (filter.status) q = q.where('events.status', '=', filter.status);
  if (filter.visibility) q = q.where('events.visibility', '=', filter.visibility);
  return q;
}

/** Events of the school in start order (ties by id), filtered by time window, status, visibility. */
export async function listEvents(
  db: Db | Tx,
  schoolId: string,
  filter: EventFilter = {},
  page: PageParams = {},
): Promise<Page<Event>> {
  const rows = await paginate(filtered(db, schoolId, parseValid(EventFilterFields, filter)), page, {
    table: 'events',
    sortColumn: 'starts_at',
  });
  return { data: rows.data.map(toEvent), next_cursor: rows.next_cursor };
}

/** How many events match (GraphQL totalCount). */
export function countEvents(db: Db | Tx, schoolId: string, filter: EventFilter = {}): Promise<number> {
  return countRows(filtered(db, schoolId, parseValid(EventFilterFields, filter)));
}

/** Public, scheduled events that have not ended: what anonymous visitors and tools may see. */
export function listUpcomingPublicEvents(
  db: Db | Tx,
  schoolId: string,
  page: PageParams = {},
  now: string = isoNow(),
): Promise<Page<Event>> {
  return listEvents(db, schoolId, { endsAfter: now, status: 'scheduled', visibility: 'public' }, page);
}

/** An event of the school, or undefined. */
async function findEvent(db: Db | Tx, schoolId: string, id: string): Promise<Event | undefined> {
  const row = await eventQuery(db, schoolId).where('events.id', '=', id).executeTakeFirst();
  return row ? toEvent(row) : undefined;
}

/** An event of the school; 404 otherwise. */
export async function getEvent(db: Db | Tx, schoolId: string, id: string): Promise<Event> {
  const event = await findEvent(db, schoolId, id);
  if (!event) throw problems.notFound('No such event.');
  return event;
}

function checkWindow(startsAt: string, endsAt: string): void {
  if (endsAt <= startsAt) throw problems.validation([{ field: 'endsAt', message: 'must be after startsAt' }]);
}

/** Creates an event (public and scheduled unless said otherwise). */
export async function createEvent(db: Db | Tx, schoolId: string, input: EventInput): Promise<Event> {
  const v = parseValid(EventCreate, input);
  checkWindow(v.startsAt, v.endsAt);
  const school = await db.selectFrom('schools').select('id').where('id', '=', schoolId).executeTakeFirst();
  if (!school) throw problems.notFound('No such school.');
  const now = isoNow();
  const id = newId('evt');
  await db
    .insertInto('events')
    .values({
      id,
      school_id: schoolId,
      title: v.title,
      description: v.description ?? '',
      starts_at: v.startsAt,
      ends_at: v.endsAt,
      capacity: v.capacity ?? null,
      online_url: v.onlineUrl ?? null,
      location: v.location ?? null,
      visibility: v.visibility ?? 'public',
      status: v.status ?? 'scheduled',
      created_at: now,
      updated_at: now,
    })
    .execute();
  return getEvent(db, schoolId, id);
}

/** Changes an event; capacity cannot drop below the registrations it already has. */
export async function updateEvent(
  db: Db | Tx,
  schoolId: string,
  id: string,
  input: z.input<typeof EventPatch>,
): Promise<Event> {
  const patch = parseValid(EventPatch, input);
  const current = await getEvent(db, schoolId, id);
  checkWindow(patch.startsAt ?? current.startsAt, patch.endsAt ?? current.endsAt);
  if (typeof patch.capacity === 'number' && patch.capacity < current.registeredCount) {
    throw problems.validation([
      { field: 'capacity', message: `cannot be below the ${current.registeredCount} current registrations` },
    ]);
  }
  await db
    .updateTable('events')
    .set({ ...columnsOf(patch), updated_at: isoNow() })
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .execute();
  return getEvent(db, schoolId, id);
}

/** Deletes an event and its registrations. */
export async function deleteEvent(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await deleteOwned(db, 'events', schoolId, id, 'event');
}
