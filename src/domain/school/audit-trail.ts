import { sql } from 'kysely';
import type { Actor } from '../../events/context.ts';
import type { DomainEventsTable } from '../../events/tables.ts';
import type { Db, Tx } from '../../store/database.ts';
import { type Page, type PageParams, paginate } from '../kernel/pagination.ts';

/** Who acted, with the names a reader knows them by (null when the row is gone, or the system). */
export interface AuditActor {
  type: Actor['type'];
  id: string | null;
  clientId: string | null;
  /** The person's name and email (a user actor). */
  name: string | null;
  email: string | null;
  /** The OAuth client's name: the app a person acted through, or the client acting itself. */
  clientName: string | null;
}

/** One entry of a school's audit trail: a domain event as operators read it. */
export interface AuditEvent {
  id: string;
  type: string;
  schoolId: string;
  actor: AuditActor;
  occurredAt: string;
  data: Record<string, unknown>;
  requestId: string | null;
}

/** What the trail can be narrowed to: types (exact), one actor, an occurred_at range [from, to). */
export interface AuditFilter {
  types?: readonly string[];
  actorId?: string;
  actorType?: Actor['type'];
  from?: string;
  to?: string;
}

type AuditRow = DomainEventsTable & {
  user_name: string | null;
  user_email: string | null;
  client_name: string | null;
};

function toAuditEvent(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    type: row.type,
    schoolId: row.school_id,
    actor: {
      type: row.actor_type,
      id: row.actor_id,
      clientId: row.actor_client_id,
      name: row.user_name,
      email: row.user_email,
      clientName: row.client_name,
    },
    occurredAt: row.occurred_at,
    data: JSON.parse(row.data) as Record<string, unknown>,
    requestId: row.request_id,
  };
}

/**
 * The school's events, newest first, by keyset over ids, with the actor's name and email and the
 * app's name joined in the same query. Another school's events never match.
 */
export async function listAuditEvents(
  db: Db | Tx,
  schoolId: string,
  filter: AuditFilter = {},
  page: PageParams = {},
): Promise<Page<AuditEvent>> {
  let query = db
    .selectFrom('domain_events')
    .leftJoin('users', (j) =>
      j.onRef('users.id', '=', 'domain_events.actor_id').on('domain_events.actor_type', '=', 'user'),
    )
    // A person acts through actor_client_id; a client acting itself is actor_id.
    .leftJoin('oauth_clients', (j) =>
      j.on(
        'oauth_clients.id',
        '=',
        sql<string>`case when domain_events.actor_type = 'client' then domain_events.actor_id else domain_events.actor_client_id end`,
      ),
    )
    .selectAll('domain_events')
    .select(['users.name as user_name', 'users.email as user_email', 'oauth_clients.name as client_name'])
    .where('domain_events.school_id', '=', schoolId);
  if (filter.types && filter.types.length > 0)
    query = query.where('domain_events.type', 'in', [...filter.types]);
  if (filter.actorId) query = query.where('domain_events.actor_id', '=', filter.actorId);
  if (filter.actorType) query = query.where('domain_events.actor_type', '=', filter.actorType);
  if (filter.from) query = query.where('domain_events.occurred_at', '>=', filter.from);
  if (filter.to) query = query.where('domain_events.occurred_at', '<', filter.to);
  const rows = await paginate(query, page, { table: 'domain_events', direction: 'desc' });
  return { data: rows.data.map(toAuditEvent), next_cursor: rows.next_cursor };
}

/** Someone who appears in a school's audit trail as its actor. */
export interface AuditActorChoice {
  type: Actor['type'];
  id: string;
  name: string;
  email: string | null;
}

/**
 * The people and apps that acted at the school (the system aside), by name: what the trail can be
 * narrowed to by actor. A person or app whose row is gone is left out: nothing names them.
 */
export async function listAuditActors(db: Db | Tx, schoolId: string): Promise<AuditActorChoice[]> {
  const actors = db
    .selectFrom('domain_events')
    .select(['actor_type', 'actor_id'])
    .distinct()
    .where('school_id', '=', schoolId)
    .where('actor_id', 'is not', null)
    .where('actor_type', 'in', ['user', 'client'])
    .as('a');
  const users = await db
    .selectFrom(actors)
    .innerJoin('users', 'users.id', 'a.actor_id')
    .select(['users.id', 'users.name', 'users.email'])
    .where('a.actor_type', '=', 'user')
    .execute();
  const clients = await db
    .selectFrom(actors)
    .innerJoin('oauth_clients', 'oauth_clients.id', 'a.actor_id')
    .select(['oauth_clients.id', 'oauth_clients.name'])
    .where('a.actor_type', '=', 'client')
    .execute();
  const byName = (a: AuditActorChoice, b: AuditActorChoice) =>
    a.name.localeCompare(b.name) || (a.email ?? '').localeCompare(b.email ?? '');
  return [
    ...users.map((u) => ({ type: 'user' as const, id: u.id, name: u.name, email: u.email })),
    ...clients.map((c) => ({ type: 'client' as const, id: c.id, name: c.name, email: null })),
  ].sort(byName);
}

/** What an event's data names, by id, as a reader knows it. */
export interface AuditSubjects {
  users: Map<string, { name: string; email: string }>;
  courses: Map<string, string>;
  lectures: Map<string, string>;
  events: Map<string, string>;
  plans: Map<string, string>;
  clients: Map<string, string>;
  endpoints: Map<string, string>;
}

const idsOf = (events: readonly AuditEvent[], ...keys: string[]) => [
  ...new Set(
    events.flatMap((e) =>
      keys.map((k) => e.data[k]).filter((v): v is string => typeof v === 'string' && v !== ''),
    ),
  ),
];

/**
 * The names behind the ids in a page of events: people, courses, lectures, events, plans, apps and
 * webhook endpoints, one query each. Courses, lectures, events, plans and endpoints are read
 * within the school; people and apps by the ids the school's own events hold.
 */
export async function auditSubjects(
  db: Db | Tx,
  schoolId: string,
  events: readonly AuditEvent[],
): Promise<AuditSubjects> {
  const userIds = idsOf(events, 'user_id', 'invited_by_user_id');
  const courseIds = idsOf(events, 'course_id');
  const lectureIds = idsOf(events, 'lecture_id', 'resume_lecture_id');
  const eventIds = idsOf(events, 'event_id');
  const planIds = idsOf(events, 'plan_id');
  const clientIds = idsOf(events, 'client_id');
  const endpointIds = idsOf(events, 'endpoint_id');
  const [users, courses, lectures, schoolEvents, plans, clients, endpoints] = await Promise.all([
    userIds.length
      ? db.selectFrom('users').select(['id', 'name', 'email']).where('id', 'in', userIds).execute()
      : [],
    courseIds.length
      ? db
          .selectFrom('courses')
          .select(['id', 'title'])
          .where('school_id', '=', schoolId)
          .where('id', 'in', courseIds)
          .execute()
      : [],
    lectureIds.length
      ? db
          .selectFrom('lectures')
          .select(['id', 'title'])
          .where('school_id', '=', schoolId)
          .where('id', 'in', lectureIds)
          .execute()
      : [],
    eventIds.length
      ? db
          .selectFrom('events')
          .select(['id', 'title'])
          .where('school_id', '=', schoolId)
          .where('id', 'in', eventIds)
          .execute()
      : [],
    planIds.length
      ? db
          .selectFrom('membership_plans')
          .select(['id', 'name'])
          .where('school_id', '=', schoolId)
          .where('id', 'in', planIds)
          .execute()
      : [],
    clientIds.length
      ? db.selectFrom('oauth_clients').select(['id', 'name']).where('id', 'in', clientIds).execute()
      : [],
    endpointIds.length
      ? db
          .selectFrom('webhook_endpoints')
          .select(['id', 'url'])
          .where('school_id', '=', schoolId)
          .where('id', 'in', endpointIds)
          .execute()
      : [],
  ]);
  return {
    users: new Map(users.map((u) => [u.id, { name: u.name, email: u.email }])),
    courses: new Map(courses.map((c) => [c.id, c.title])),
    lectures: new Map(lectures.map((l) => [l.id, l.title])),
    events: new Map(schoolEvents.map((e) => [e.id, e.title])),
    plans: new Map(plans.map((p) => [p.id, p.name])),
    clients: new Map(clients.map((c) => [c.id, c.name])),
    endpoints: new Map(endpoints.map((e) => [e.id, e.url])),
  };
}
