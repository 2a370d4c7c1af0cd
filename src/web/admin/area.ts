/**
 * The frame of the operator area: which schools the viewer operates, the guard that admits only
 * a school's owners and admins, and the navigation with the school switcher.
 */
import type { Context } from 'hono';
import { html } from 'hono/html';
import { listMembershipsOfUser } from '../../domain/school/memberships.ts';
import { betaFeatures, findSchoolById, type School } from '../../domain/school/schools.ts';
import { mayActFor, standingRoles } from '../../domain/school/standing.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import type { Html } from '../layout.ts';
import { messagePage, type NavLink, requireViewer, topNav, type Viewer } from '../shared/page-kit.ts';

/** A school the viewer may operate. */
export interface OperatedSchool {
  readonly id: string;
  readonly name: string;
  /** The viewer's roles there. */
  readonly roles: readonly string[];
}

/** The schools where the viewer is an active owner or admin (product.md §2), by name. */
export async function operatedSchools(ctx: AppContext, viewer: Viewer): Promise<OperatedSchool[]> {
  const memberships = await listMembershipsOfUser(ctx.db, viewer.user.id);
  return memberships
    .map((m) => ({ id: m.schoolId, name: m.schoolName, roles: standingRoles(m) }))
    .filter((s) => mayActFor('operator', s.roles));
}

/** The operator's view of one school. */
export interface Area {
  readonly viewer: Viewer;
  readonly school: School;
  /** The viewer's roles at this school. */
  readonly roles: readonly string[];
  readonly schools: readonly OperatedSchool[];
  /** The MCP connections beta is on: the Developers section shows. */
  readonly developers: boolean;
  /** Webhook endpoints Lectern disabled (410, failing for days): the owners are told here. */
  readonly disabledWebhooks: number;
}

/**
 * The school of the path if the viewer operates it, else the 403 page. Another school's id and
 * an unknown id get the same answer, so the page does not reveal which schools exist.
 */
async function requireOperator(
  ctx: AppContext,
  c: Context,
  viewer: Viewer,
  schoolId: string,
): Promise<Area | Response> {
  const schools = await operatedSchools(ctx, viewer);
  const operated = schools.find((s) => s.id === schoolId);
  const school = operated ? await findSchoolById(ctx.db, schoolId) : undefined;
  if (!operated || !school) return forbidden(c);
  const disabled = await ctx.db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('school_id', '=', school.id)
    .where('enabled', '=', 0)
    .where('disabled_reason', 'is not', null)
    .execute();
  return {
    viewer,
    school,
    roles: operated.roles,
    schools,
    developers: betaFeatures(school).includes('mcp_connections'),
    disabledWebhooks: disabled.length,
  };
}

/** The area of the request's `:school`: signed in (else /login) and its operator (else the 403 page). */
export async function areaOfRequest(ctx: AppContext, c: Context<AppEnv>): Promise<Area | Response> {
  const viewer = await requireViewer(ctx, c, '/admin');
  if (viewer instanceof Response) return viewer;
  return requireOperator(ctx, c, viewer, c.req.param('school') ?? '');
}

/** A page of the area: `handler` runs only for a signed-in operator of the school in the path. */
export function operatorPage(
  ctx: AppContext,
  handler: (c: Context<AppEnv>, area: Area) => Promise<Response>,
): (c: Context<AppEnv>) => Promise<Response> {
  return async (c) => {
    const area = await areaOfRequest(ctx, c);
    return area instanceof Response ? area : handler(c, area);
  };
}

/** The refusal shown to people who are not an owner or admin of the school. */
export function forbidden(c: Context): Promise<Response> {
  return messagePage(
    c,
    403,
    'Not an operator',
    'Only owners and admins of a school can open its admin area. Ask an owner of the school to give you the admin role.',
  );
}

export type Section = 'settings' | 'members' | 'apps' | 'connected' | 'locked' | 'audit' | 'webhooks';

/** Path of a page of the area. */
export function areaPath(schoolId: string, rest = ''): string {
  return `/admin/${encodeURIComponent(schoolId)}${rest}`;
}

/** Navigation: the school's sections (Developers only while the beta is on) and the switcher. */
export function areaNav(area: Area, current: Section): Html {
  const links: NavLink[] = [
    { href: areaPath(area.school.id), label: 'Settings', current: current === 'settings' },
    { href: areaPath(area.school.id, '/members'), label: 'Members', current: current === 'members' },
  ];
  if (area.developers) {
    links.push({
      href: areaPath(area.school.id, '/apps'),
      label: 'OAuth applications',
      current: current === 'apps',
    });
  }
  links.push(
    {
      href: areaPath(area.school.id, '/connected'),
      label: 'Connected apps',
      current: current === 'connected',
    },
    { href: areaPath(area.school.id, '/locked'), label: 'Locked accounts', current: current === 'locked' },
    { href: areaPath(area.school.id, '/audit'), label: 'Audit trail', current: current === 'audit' },
    {
      href: areaPath(area.school.id, '/webhooks'),
      // An endpoint Lectern disabled is shown on every page of the area until someone acts.
      label: area.disabledWebhooks > 0 ? `Webhooks (${area.disabledWebhooks} disabled)` : 'Webhooks',
      current: current === 'webhooks',
    },
    { href: '/account', label: 'My account' },
  );
  const switcher =
    area.schools.length > 1
      ? html`<form method="get" action="/admin" class="switcher">
<label for="school-switch">School</label>
<select id="school-switch" name="school">${area.schools.map(
          (s) =>
            html`<option value="${s.id}"${s.id === area.school.id ? html` selected` : ''}>${s.name}</option>`,
        )}</select>
<div class="actions"><button class="secondary small" type="submit">Switch school</button></div>
</form>`
      : '';
  return html`${topNav(area.viewer, links)}${switcher}`;
}
