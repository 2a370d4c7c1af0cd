import { sql } from 'kysely';
import { newId } from '../../crypto/ids.ts';
import { problem, problems } from '../../errors/problem-error.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { withTransaction } from '../kernel/checks.ts';
import { countRows, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { EventRegistrationsTable } from '../kernel/tables.ts';
import { findMembership } from '../school/memberships.ts';
import { getEvent } from './events.ts';

/** A person's seat at an event. */
export interface EventRegistration {
  id: string;
  schoolId: string;
  eventId: string;
  userId: string;
  event: { id: string; title: string; startsAt: string; endsAt: string };
  user: { id: string; name: string; email: string };
  status: EventRegistrationsTable['status'];
  registeredAt: string;
  canceledAt: string | null;
}

type Row = EventRegistrationsTable & {
  event_title: string;
  event_starts_at: string;
  event_ends_at: string;
  user_name: string;
  user_email: string;
};

function toRegistration(r: Row): EventRegistration {
  return {
    id: r.id,
    schoolId: r.school_id,
    eventId: r.event_id,
    userId: r.user_id,
    event: { id: r.event_id, title: r.event_title, startsAt: r.event_starts_at, endsAt: r.event_ends_at },
    user: { id: r.user_id, name: r.user_name, email: r.user_email },
    status: r.status,
    registeredAt: r.registered_at,
    canceledAt: r.canceled_at,
  };
}

function baseQuery(db: Db | Tx, schoolId: string) {
  return db
    .selectFrom('event_registrations')
    .innerJoin('events', 'events.id', 'event_registrations.event_id')
    .innerJoin('users', 'users.id', 'event_registrations.user_id')
    .selectAll('event_registrations')
    .select([
      'events.title as event_title',
      'events.starts_at as event_starts_at',
      'events.ends_at as event_ends_at',
      'users.name as user_name',
      'users.email as user_email',
    ])
    .where('event_registrations.school_id', '=', schoolId);
}

async function byId(db: Db | Tx, schoolId: string, id: string): Promise<EventRegistration> {
  const row = await baseQuery(db, schoolId).where('event_registrations.id', '=', id).executeTakeFirst();
  if (!row) throw problems.notFound('No such registration.');
  return toRegistration(row);
}

/** A registration of the school by id; 404 otherwise. */
export function getRegistration(db: Db | Tx, schoolId: string, id: string): Promise<EventRegistration> {
  return byId(db, schoolId, id);
}

/**
 * Registers a member for an event. Registering again while registered is idempotent: the
 * existing registration comes back with `created: false` (agents retry; a retry must not fail).
 * A canceled registration is re-activated. Full → 409 `event_full`; canceled event → 409
 * `event_canceled`; ended event → 409 `event_ended`; not a member of the school → 404.
 */
export async function registerForEvent(
  db: Db | Tx,
  schoolId: string,
  eventId: string,
  userId: string,
): Promise<{ registration: EventRegistration; created: boolean }> {
  return withTransaction(db, async (tx) => {
    // Touching the event row serialises concurrent registrations for it (a row lock on
    // PostgreSQL, the write lock on SQLite), so the capacity check below cannot be raced.
    const locked = await tx
      .updateTable('events')
      .set({ updated_at: sql`updated_at` })
      .where('school_id', '=', schoolId)
      .where('id', '=', eventId)
      .executeTakeFirst();
    if (Number(locked.numUpdatedRows) === 0) throw problems.notFound('No such event.');
    const event = await getEvent(tx, schoolId, eventId);
    if (!(await findMembership(tx, schoolId, userId)))
      throw problems.notFound('No such member at this school.');
    const existing = await tx
      .selectFrom('event_registrations')
      .select(['id', 'status'])
      .where('event_id', '=', eventId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (existing && existing.status !== 'canceled') {
      return { registration: await byId(tx, schoolId, existing.id), created: false };
    }
    const now = isoNow();
    if (event.status === 'canceled') {
      throw problem('event_canceled', { detail: 'This event has been canceled.' });
    }
    if (event.endsAt <= now) {
      throw problem('event_ended', { detail: 'This event has already ended.' });
    }
    if (event.capacity !== null && event.registeredCount >= event.capacity) {
      throw problem('event_full', {
        detail: `All ${event.capacity} places of this event are taken.`,
      });
    }
    if (existing) {
      await tx
        .updateTable('event_registrations')
        .set({ status: 'registered', registered_at: now, canceled_at: null })
        .where('id', '=', existing.id)
        .execute();
      await recordEvent(
        tx,
        schoolId,
        'event_registration.created',
        registrationData(existing.id, eventId, userId),
      );
      return { registration: await byId(tx, schoolId, existing.id), created: true };
    }
    const id = newId('reg');
    await tx
      .insertInto('event_registrations')
      .values({
        id,
        school_id: schoolId,
        event_id: eventId,
        user_id: userId,
        status: 'registered',
        registered_at: now,
        canceled_at: null,
      })
      .execute();
    await recordEvent(tx, schoolId, 'event_registration.created', registrationData(id, eventId, userId));
    return { registration: await byId(tx, schoolId, id), created: true };
  });
}

/** Cancels a registration (idempotent: canceling a canceled one returns it unchanged). */
export async function cancelRegistration(
  db: Db | Tx,
  schoolId: string,
  id: string,
): Promise<EventRegistration> {
  return withTransaction(db, async (tx) => {
    const current = await byId(tx, schoolId, id);
    if (current.status === 'canceled') return current;
    const result = await tx
      .updateTable('event_registrations')
      .set({ status: 'canceled', canceled_at: isoNow() })
      .where('school_id', '=', schoolId)
      .where('id', '=', id)
      .where('status', '!=', 'canceled')
      .executeTakeFirst();
    // Only the call that changed the row tells of it (a concurrent cancel changed nothing).
    if (Number(result.numUpdatedRows) === 1) {
      await recordEvent(
        tx,
        schoolId,
        'event_registration.canceled',
        registrationData(id, current.eventId, current.userId),
      );
    }
    return byId(tx, schoolId, id);
  });
}

/** The user's registration for an event, or undefined. */
export async function findRegistrationOf(
  db: Db | Tx,
  schoolId: string,
  eventId: string,
  userId: string,
): Promise<EventRegistration | undefined> {
  const row = await baseQuery(db, schoolId)
    .where('event_registrations.event_id', '=', eventId)
    .where('event_registrations.user_id', '=', userId)
    .executeTakeFirst();
  return row ? toRegistration(row) : undefined;
}

export interface RegistrationFilter {
  eventId?: string;
  userId?: string;
  /** Leave out canceled registrations (default false: list all). */
  activeOnly?: boolean;
  /** Only registrations for events that have not ended yet. */
  upcomingOnly?: boolean;
}

function filtered(db: Db | Tx, schoolId: string, filter: RegistrationFilter) {
  let q = baseQuery(db, schoolId);
  if (filter.eventId) q = q.where('event_registrations.event_id', '=', filter.eventId);
  if (filter.userId) q = q.where('event_registrations.user_id', '=', filter.userId);
  if (filter.activeOnly) q = q.where('event_registrations.status', '!=', 'canceled');
  if (filter.upcomingOnly) q = q.where('events.ends_at', '>', isoNow());
  return q;
}

/** Registrations of an event (404 if the event is not the school's), oldest first. */
export async function listEventRegistrations(
  db: Db | Tx,
  schoolId: string,
  eventId: string,
  page: PageParams = {},
  filter: Omit<RegistrationFilter, 'eventId'> = {},
): Promise<Page<EventRegistration>> {
  await getEvent(db, schoolId, eventId);
  return listRegistrations(db, schoolId, { ...filter, eventId }, page);
}

/** A user's registrations at the school, oldest first. */
export function listUserRegistrations(
  db: Db | Tx,
  schoolId: string,
  userId: string,
  page: PageParams = {},
  filter: Omit<RegistrationFilter, 'userId'> = {},
): Promise<Page<EventRegistration>> {
  return listRegistrations(db, schoolId, { ...filter, userId }, page);
}

/** Registrations of the school by event and/or user. */
async function listRegistrations(
  db: Db | Tx,
  schoolId: string,
  filter: RegistrationFilter,
  page: PageParams = {},
): Promise<Page<EventRegistration>> {
  const rows = await paginate(filtered(db, schoolId, filter), page, { table: 'event_registrations' });
  return { data: rows.data.map(toRegistration), next_cursor: rows.next_cursor };
}

/** How many registrations match (GraphQL totalCount). */
export function countRegistrations(
  db: Db | Tx,
  schoolId: string,
  filter: RegistrationFilter,
): Promise<number> {
  return countRows(filtered(db, schoolId, filter));
}

function registrationData(id: string, eventId: string, userId: string) {
  return { registration_id: id, event_id: eventId, user_id: userId };
}
