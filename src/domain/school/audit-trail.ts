import type { Actor } from '../../events/context.ts';
import type { DomainEventsTable } from '../../events/tables.ts';
import type { Db, Tx } from '../../store/database.ts';
import { type Page, type PageParams, paginate } from '../kernel/pagination.ts';

/** One entry of a school's audit trail: a domain event as operators read it. */
export interface AuditEvent {
  id: string;
  type: string;
  schoolId: string;
  actor: { type: Actor['type']; id: string | null; clientId: string | null };
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

function toAuditEvent(row: DomainEventsTable): AuditEvent {
  return {
    id: row.id,
    type: row.type,
    schoolId: row.school_id,
    actor: { type: row.actor_type, id: row.actor_id, clientId: row.actor_client_id },
    occurredAt: row.occurred_at,
    data: JSON.parse(row.data) as Record<string, unknown>,
    requestId: row.request_id,
  };
}

/** The school's events, newest first, by keyset over ids. Another school's events never match. */
export async function listAuditEvents(
  db: Db | Tx,
  schoolId: string,
  filter: AuditFilter = {},
  page: PageParams = {},
): Promise<Page<AuditEvent>> {
  let query = db.selectFrom('domain_events').selectAll().where('school_id', '=', schoolId);
  if (filter.types && filter.types.length > 0) query = query.where('type', 'in', [...filter.types]);
  if (filter.actorId) query = query.where('actor_id', '=', filter.actorId);
  if (filter.actorType) query = query.where('actor_type', '=', filter.actorType);
  if (filter.from) query = query.where('occurred_at', '>=', filter.from);
  if (filter.to) query = query.where('occurred_at', '<', filter.to);
  const rows = await paginate(query, page, { table: 'domain_events', direction: 'desc' });
  return { data: rows.data.map(toAuditEvent), next_cursor: rows.next_cursor };
}
