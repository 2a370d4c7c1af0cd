/**
 * `/admin/:school/audit`: the school's audit trail for its owners and admins, in words. The read
 * is the admin API's (domain/school/audit-trail.ts `listAuditEvents`), so the page and
 * `GET /api/v1/audit-events` list the same entries for the same filters.
 */
import { Hono } from 'hono';
import {
  type AuditActorChoice,
  type AuditFilter,
  auditSubjects,
  listAuditActors,
  listAuditEvents,
} from '../../domain/school/audit-trail.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import { isEventType } from '../../events/catalogue.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import { addDays, dayStart, parseDay } from '../shared/school-format.ts';
import { type Area, areaPath } from './area.ts';
import {
  type AuditFilterForm,
  type AuditListing,
  actorValue,
  auditPage,
  SYSTEM_ACTOR_VALUE,
} from './audit-views.ts';
import { type ConsoleContext, type ConsoleEnv, operators } from './console-env.ts';

/** Entries per page. */
const PAGE_SIZE = 25;

/**
 * The filters of the query string as the read takes them, or each bad one's message. Dates are
 * the school's calendar days, both included: from the start of `from` to the end of `to`.
 */
function readFilters(
  area: Area,
  values: AuditFilterForm['values'],
  actors: readonly AuditActorChoice[],
): { filter: AuditFilter; errors: AuditFilterForm['errors'] } {
  const filter: AuditFilter = {};
  const errors: AuditFilterForm['errors'] = {};
  if (values.type) {
    if (isEventType(values.type)) filter.types = [values.type];
    else errors.type = 'Choose a kind of change from the list.';
  }
  if (values.actor === SYSTEM_ACTOR_VALUE) filter.actorType = 'system';
  else if (values.actor) {
    // Only someone the list offers: any other value (another school's person, a typo) names no one here.
    const actor = actors.find((a) => actorValue(a) === values.actor);
    if (actor) {
      filter.actorType = actor.type;
      filter.actorId = actor.id;
    } else errors.actor = 'Choose a person from the list.';
  }
  const from = values.from ? parseDay(values.from) : undefined;
  const to = values.to ? parseDay(values.to) : undefined;
  if (values.from && !from) errors.from = 'Enter the first day as a date, e.g. 2026-03-01.';
  if (values.to && !to) errors.to = 'Enter the last day as a date, e.g. 2026-03-31.';
  if (from && to && from > to) errors.to = 'The last day cannot be before the first day.';
  if (from) filter.from = dayStart(area.school, from);
  if (to) filter.to = dayStart(area.school, addDays(to, 1));
  return { filter, errors };
}

/** The audit trail with the filters of the query, a page at a time. */
async function showAudit(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const q = (name: string) => (c.req.query(name) ?? '').trim().slice(0, 200);
  const values = { type: q('type'), actor: q('actor'), from: q('from'), to: q('to') };
  const cursor = q('cursor');
  const actors = await listAuditActors(app.db, area.school.id);
  const { filter, errors } = readFilters(area, values, actors);
  const path = areaPath(area.school.id, '/audit');
  const kept = Object.entries(values).filter(([, v]) => v !== '');
  const hrefWith = (extra: [string, string][]) => {
    const search = new URLSearchParams([...kept, ...extra]).toString();
    return search ? `${path}?${search}` : path;
  };
  const empty: AuditListing = {
    events: [],
    subjects: await auditSubjects(app.db, area.school.id, []),
    actors,
    olderHref: null,
    newestHref: null,
  };
  const title = `${area.school.name} · Audit trail`;
  if (Object.keys(errors).length > 0) {
    return sendAreaPage(c, 400, title, auditPage(area, { values, errors }, empty));
  }
  try {
    const page = await listAuditEvents(app.db, area.school.id, filter, {
      limit: PAGE_SIZE,
      cursor: cursor || undefined,
    });
    const listing: AuditListing = {
      events: page.data,
      subjects: await auditSubjects(app.db, area.school.id, page.data),
      actors,
      olderHref: page.next_cursor ? hrefWith([['cursor', page.next_cursor]]) : null,
      newestHref: cursor ? hrefWith([]) : null,
    };
    return sendAreaPage(c, 200, title, auditPage(area, { values, errors: {} }, listing));
  } catch (err) {
    if (!(err instanceof ProblemError) || err.code !== 'invalid_cursor') throw err;
    const page = 'That page of the audit trail does not exist. Start again from the newest entries.';
    const listing = { ...empty, newestHref: hrefWith([]) };
    return sendAreaPage(c, 400, title, auditPage(area, { values, errors: { page } }, listing));
  }
}

/** The audit trail's route. */
export function auditRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/:school/audit', operators, showAudit);
  return app;
}
