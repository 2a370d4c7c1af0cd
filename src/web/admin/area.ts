/**
 * The frame of the console: which schools the viewer may open it for, the guards (owners and
 * admins; or lecturers too, for the pages of the courses they teach), and the navigation with the
 * school switcher.
 */
import { html } from 'hono/html';
import { findLecturerByUser } from '../../domain/catalog/lecturers.ts';
import { listMembershipsOfUser } from '../../domain/school/memberships.ts';
import { betaFeatures, findSchoolById, type School } from '../../domain/school/schools.ts';
import { may, mayActFor, standingRoles } from '../../domain/school/standing.ts';
import type { AppContext } from '../../http/context.ts';
import type { Html } from '../layout.ts';
import { type NavLink, topNav, type Viewer } from '../shared/page-kit.ts';
import { PageRefusal } from '../shared/refusal.ts';
import { CONSOLE_GROUPS, type ConsoleSlug } from './console/registry.ts';

/** A school whose console the viewer may open. */
export interface OperatedSchool {
  readonly id: string;
  readonly name: string;
  /** The viewer's roles there. */
  readonly roles: readonly string[];
  /** Runs the school (owner or admin); otherwise only teaches there (a lecturer). */
  readonly operates: boolean;
}

/**
 * The schools whose console the viewer may open, by name: where they are an active owner or admin
 * (product.md §2), or a lecturer (the courses they teach, domain/school/standing.ts).
 */
export async function operatedSchools(ctx: AppContext, viewer: Viewer): Promise<OperatedSchool[]> {
  const memberships = await listMembershipsOfUser(ctx.db, viewer.user.id);
  return memberships
    .map((m) => {
      const roles = standingRoles(m);
      return { id: m.schoolId, name: m.schoolName, roles, operates: mayActFor('operator', roles) };
    })
    .filter((s) => s.operates || may(s.roles, 'teach'));
}

/** What a lecturer reaches: their lecturer profile and the courses it is on. */
export interface Teaching {
  readonly lecturerId: string | null;
  readonly courseIds: ReadonlySet<string>;
}

/** What the person teaches at the school: the courses their lecturer profile is on (none without one). */
export async function teachingOf(ctx: AppContext, schoolId: string, userId: string): Promise<Teaching> {
  const profile = await findLecturerByUser(ctx.db, schoolId, userId);
  return {
    lecturerId: profile?.id ?? null,
    courseIds: new Set(profile?.courses.map((course) => course.id) ?? []),
  };
}

/** The console's view of one school, for an operator or a lecturer. */
export interface Area {
  readonly viewer: Viewer;
  readonly school: School;
  /** The viewer's roles at this school. */
  readonly roles: readonly string[];
  /** Set for a lecturer who does not run the school: what they teach; every page asks it. */
  readonly teaching?: Teaching;
  readonly schools: readonly OperatedSchool[];
  /** The MCP connections beta is on: the Developers section shows. */
  readonly developers: boolean;
  /** Webhook endpoints Lectern disabled (410, failing for days): the owners are told here. */
  readonly disabledWebhooks: number;
}

/** Who a page admits: the school's operators only, or its lecturers too (their courses only). */
export type Admits = 'operators' | 'staff';

/** Webhook endpoints Lectern disabled (410, failing for days) at the school. */
async function disabledWebhooks(ctx: AppContext, schoolId: string): Promise<number> {
  const rows = await ctx.db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('school_id', '=', schoolId)
    .where('enabled', '=', 0)
    .where('disabled_reason', 'is not', null)
    .execute();
  return rows.length;
}

/**
 * The area of `schoolId` if the viewer may open this page of its console; else throws the 403
 * refusal. Another school's id and an unknown id get the same answer, so the console does not
 * reveal which schools exist.
 */
export async function staffArea(
  ctx: AppContext,
  viewer: Viewer,
  schoolId: string,
  admits: Admits,
): Promise<Area> {
  const schools = await operatedSchools(ctx, viewer);
  const operated = schools.find((s) => s.id === schoolId);
  const school = operated ? await findSchoolById(ctx.db, schoolId) : undefined;
  if (!operated || !school) throw notOperator();
  let teaching: Teaching | undefined;
  if (!operated.operates) {
    if (admits === 'operators') throw forOwnersAndAdmins(areaPath(school.id, '/courses'));
    teaching = await teachingOf(ctx, school.id, viewer.user.id);
  }
  return {
    viewer,
    school,
    roles: operated.roles,
    teaching,
    schools,
    developers: betaFeatures(school).includes('mcp_connections'),
    disabledWebhooks: await disabledWebhooks(ctx, school.id),
  };
}

/** The refusal of someone who is not staff of the school at all. */
export function notOperator(): PageRefusal {
  return new PageRefusal(
    403,
    'Not an operator',
    'Only owners and admins of a school can open its admin area. Ask an owner of the school to give you the admin role.',
  );
}

/** The refusal of a lecturer on a page for owners and admins, with the way to their own pages. */
function forOwnersAndAdmins(courses: string): PageRefusal {
  return new PageRefusal(
    403,
    'For owners and admins',
    'This page is for the school’s owners and admins. As a lecturer you can open the courses you teach.',
    { links: [{ href: courses, label: 'Go to your courses' }] },
  );
}

/**
 * A page of the area, for the navigation's current link: the hand-made pages by name, the
 * generated ones by their group's slug (console/registry.ts).
 */
export type Section =
  | 'settings'
  | 'members'
  | 'apps'
  | 'connected'
  | 'locked'
  | 'audit'
  | 'webhooks'
  | 'orders'
  | 'files'
  | 'analytics'
  | ConsoleSlug;

/** Path of a page of the area. */
export function areaPath(schoolId: string, rest = ''): string {
  return `/admin/${encodeURIComponent(schoolId)}${rest}`;
}

/**
 * Navigation: one link per section of the school, in the order people look for them (the
 * catalogue, sales, the community, the site, then the school's own settings and people; Developers
 * only while the beta is on), a wrapping list that stays usable on a phone; the settings pages
 * get a second row of their own; then the school switcher. A lecturer sees Courses alone.
 */
export function areaNav(area: Area, current: Section): Html {
  const at = (rest: string) => areaPath(area.school.id, rest);
  const group = (slug: ConsoleSlug): NavLink => {
    const g = CONSOLE_GROUPS.find((x) => x.slug === slug);
    return { href: at(`/${slug}`), label: g?.name ?? slug, current: current === slug };
  };
  // A lecturer who does not run the school reaches the courses they teach, nothing else.
  if (area.teaching)
    return topNav(area.viewer, [group('courses'), { href: '/account', label: 'My account' }]);
  const settings = current === 'settings' || current === 'school' || current === 'appearance';
  const links: NavLink[] = [
    group('courses'),
    group('students'),
    group('lecturers'),
    { href: at('/orders'), label: 'Orders', current: current === 'orders' },
    group('coupons'),
    group('membership-plans'),
    group('subscriptions'),
    group('digital-products'),
    group('events'),
    group('posts'),
    group('comments'),
    group('pages'),
    group('forms'),
    { href: at('/files'), label: 'Files', current: current === 'files' },
    { href: at('/analytics'), label: 'Analytics', current: current === 'analytics' },
    { href: at(''), label: 'Settings', current: settings },
    { href: at('/members'), label: 'Members', current: current === 'members' },
  ];
  if (area.developers) {
    links.push({ href: at('/apps'), label: 'OAuth applications', current: current === 'apps' });
  }
  links.push(
    { href: at('/connected'), label: 'Connected apps', current: current === 'connected' },
    { href: at('/locked'), label: 'Locked accounts', current: current === 'locked' },
    { href: at('/audit'), label: 'Audit trail', current: current === 'audit' },
    {
      href: at('/webhooks'),
      // An endpoint Lectern disabled is shown on every page of the area until someone acts.
      label: area.disabledWebhooks > 0 ? `Webhooks (${area.disabledWebhooks} disabled)` : 'Webhooks',
      current: current === 'webhooks',
    },
    { href: '/account', label: 'My account' },
  );
  const sub = (href: string, label: string, on: boolean) =>
    html`<a href="${href}"${on ? html` aria-current="page"` : ''}>${label}</a>`;
  const settingsNav = settings
    ? html`<nav class="sub" aria-label="Settings">${sub(at(''), 'Beta features', current === 'settings')}${sub(
        at('/school'),
        'School details',
        current === 'school',
      )}${sub(at('/appearance'), 'Appearance', current === 'appearance')}</nav>`
    : '';
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
  return html`${topNav(area.viewer, links)}${settingsNav}${switcher}`;
}
