import { sql } from 'kysely';
import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { Checks, deleteOwned } from '../kernel/checks.ts';
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

export interface EventInput {
  title: string;
  description?: string;
  startsAt: string;
  endsAt: string;
  capacity?: number | null;
  onlineUrl?: string | null;
  location?: string | null;
  visibility?: Event['visibility'];
  status?: Event['status'];
}

export interface EventFilter {
  /** Events ending after this instant (e.g. now: upcoming and running). */
  endsAfter?: string;
  /** Events starting before this instant. */
  startsBefore?: string;
  status?: Event['status'];
  visibility?: Event['visibility'];
}

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

function checkFilter(filter: EventFilter): EventFilter {
  const c = new Checks();
  const out: EventFilter = {
    endsAfter: filter.endsAfter === undefined ? undefined : c.timestamp('endsAfter', filter.endsAfter),
    startsBefore:
      filter.startsBefore === undefined ? undefined : c.timestamp('startsBefore', filter.startsBefore),
    status: filter.status === undefined ? undefined : c.oneOf('status', filter.status, EVENT_STATUSES),
    visibility:
      filter.visibility === undefined
        ? undefined
        : c.oneOf('visibility', filter.visibility, EVENT_VISIBILITIES),
  };
  c.done();
  return out;
}

/** Events of the school in start order (ties by id), filtered by time window, status, visibility. */
export async function listEvents(
  db: Db | Tx,
  schoolId: string,
  filter: EventFilter = {},
  page: PageParams = {},
): Promise<Page<Event>> {
  const rows = await paginate(filtered(db, schoolId, checkFilter(filter)), page, {
    table: 'events',
    sortColumn: 'starts_at',
  });
  return { data: rows.data.map(toEvent), next_cursor: rows.next_cursor };
}

/** How many events match (GraphQL totalCount). */
export function countEvents(db: Db | Tx, schoolId: string, filter: EventFilter = {}): Promise<number> {
  return countRows(filtered(db, schoolId, checkFilter(filter)));
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
export async function findEvent(db: Db | Tx, schoolId: string, id: string): Promise<Event | undefined> {
  const row = await eventQuery(db, schoolId).where('events.id', '=', id).executeTakeFirst();
  return row ? toEvent(row) : undefined;
}

/** An event of the school; 404 otherwise. */
export async function getEvent(db: Db | Tx, schoolId: string, id: string): Promise<Event> {
  const event = await findEvent(db, schoolId, id);
  if (!event) throw problems.notFound('No such event.');
  return event;
}

function checkEvent(input: Partial<EventInput>, creating: boolean): Partial<EventsTable> {
  const c = new Checks();
  const set: Partial<EventsTable> = {};
  if (creating || input.title !== undefined) set.title = c.text('title', input.title);
  if (input.description !== undefined)
    set.description = c.optionalText('description', input.description) ?? '';
  if (creating || input.startsAt !== undefined) set.starts_at = c.timestamp('startsAt', input.startsAt);
  if (creating || input.endsAt !== undefined) set.ends_at = c.timestamp('endsAt', input.endsAt);
  if (input.capacity !== undefined)
    set.capacity = input.capacity === null ? null : c.int('capacity', input.capacity, 1, 1_000_000);
  if (input.onlineUrl !== undefined) set.online_url = c.url('onlineUrl', input.onlineUrl);
  if (input.location !== undefined) set.location = c.optionalText('location', input.location, 500);
  if (input.visibility !== undefined)
    set.visibility = c.oneOf('visibility', input.visibility, EVENT_VISIBILITIES);
  if (input.status !== undefined) set.status = c.oneOf('status', input.status, EVENT_STATUSES);
  c.done();
  return set;
}

function checkWindow(startsAt: string, endsAt: string): void {
  if (endsAt <= startsAt) throw problems.validation([{ field: 'endsAt', message: 'must be after startsAt' }]);
}

/** Creates an event (public and scheduled unless said otherwise). */
export async function createEvent(db: Db | Tx, schoolId: string, input: EventInput): Promise<Event> {
  const set = checkEvent(input, true);
  checkWindow(set.starts_at!, set.ends_at!);
  const school = await db.selectFrom('schools').select('id').where('id', '=', schoolId).executeTakeFirst();
  if (!school) throw problems.notFound('No such school.');
  const now = isoNow();
  const id = newId('evt');
  await db
    .insertInto('events')
    .values({
      id,
      school_id: schoolId,
      title: set.title!,
      description: set.description ?? '',
      starts_at: set.starts_at!,
      ends_at: set.ends_at!,
      capacity: set.capacity ?? null,
      online_url: set.online_url ?? null,
      location: set.location ?? null,
      visibility: set.visibility ?? 'public',
      status: set.status ?? 'scheduled',
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
  patch: Partial<EventInput>,
): Promise<Event> {
  const set = checkEvent(patch, false);
  const current = await getEvent(db, schoolId, id);
  checkWindow(set.starts_at ?? current.startsAt, set.ends_at ?? current.endsAt);
  if (typeof set.capacity === 'number' && set.capacity < current.registeredCount) {
    throw problems.validation([
      { field: 'capacity', message: `cannot be below the ${current.registeredCount} current registrations` },
    ]);
  }
  await db
    .updateTable('events')
    .set({ ...set, updated_at: isoNow() })
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .execute();
  return getEvent(db, schoolId, id);
}

/** Deletes an event and its registrations. */
export async function deleteEvent(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await deleteOwned(db, 'events', schoolId, id, 'event');
}
