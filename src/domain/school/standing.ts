/**
 * Who may act at a school: one table of the roles and what each may do (product.md §2), and one
 * function every surface asks (the bearer check, grants and consent, the operator pages, the
 * account pages, the admin operations). A person's standing at a school is the roles of their
 * active membership there; an invited or a missing membership gives none.
 */
import { parseRoles, type Role } from './roles.ts';

/**
 * What a role may do beyond the admin resources (ROLE_GRANTS):
 * - `act_as_member`: use member-audience clients (the Account API, member tools) for their own data;
 * - `act_as_operator`: use operator-audience clients to run the school (operator tokens stay
 *   owners' and admins');
 * - `manage_owners`: grant, change or remove the owner role, and invite owners;
 * - `teach`: open the operator pages, where their grants reach the courses they teach.
 */
export type Permission = 'act_as_member' | 'act_as_operator' | 'manage_owners' | 'teach';

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  owner: ['act_as_member', 'act_as_operator', 'manage_owners'],
  admin: ['act_as_member', 'act_as_operator'],
  lecturer: ['act_as_member', 'teach'],
  student: ['act_as_member'],
};

/**
 * How far a grant reaches at the school: all of it, or the courses the person teaches (those their
 * lecturer profile is on; the narrowing rule of each resource is resource/narrowing.ts).
 */
export type Reach = 'school' | 'taught_courses';

/**
 * One row of what a role may do with the admin resources, in the scope vocabulary
 * (oauth/scopes.ts): a resource group (`*`: every group), its access (`write` implies `read`, as
 * for scopes) and how far it reaches.
 */
interface Grant {
  readonly resource: string;
  readonly action: 'read' | 'write';
  readonly reach: Reach;
}

/**
 * What each role may do with the admin resources (product.md §2, §8). Owners and admins run the
 * whole school. A lecturer reads the courses they teach, changes their curriculum and lecture
 * content, reads their students' enrollments and progress, and uploads the files lectures show;
 * they never list or read the school's other files, which may be another course's paid content.
 * What a token may do is its scopes within these rows; what the console may do for a person is
 * these rows (resource/authorization.ts).
 */
export const ROLE_GRANTS: Readonly<Record<Role, readonly Grant[]>> = {
  owner: [{ resource: '*', action: 'write', reach: 'school' }],
  admin: [{ resource: '*', action: 'write', reach: 'school' }],
  lecturer: [
    { resource: 'courses', action: 'read', reach: 'taught_courses' },
    { resource: 'curriculum', action: 'write', reach: 'taught_courses' },
    { resource: 'students', action: 'read', reach: 'taught_courses' },
    { resource: 'storage', action: 'write', reach: 'taught_courses' },
  ],
  student: [],
};

/** The courses a grant reaching `taught_courses` reaches: the person's lecturer profile and its courses. */
export interface TaughtCourses {
  readonly lecturerId: string | null;
  readonly courseIds: ReadonlySet<string>;
}

/**
 * How far these roles reach for the scope `<resource>:<action>`: the widest of their rows that
 * covers it (`write` covers `read`), or undefined when none does.
 */
export function reachOf(roles: readonly string[], scope: string): Reach | undefined {
  const colon = scope.indexOf(':');
  if (colon < 0) return undefined;
  const resource = scope.slice(0, colon);
  const action = scope.slice(colon + 1);
  let reach: Reach | undefined;
  for (const role of roles) {
    for (const g of ROLE_GRANTS[role as Role] ?? []) {
      if (g.resource !== '*' && g.resource !== resource) continue;
      if (g.action !== action && g.action !== 'write') continue;
      if (g.reach === 'school') return 'school';
      reach = g.reach;
    }
  }
  return reach;
}

/** The two audiences a client acts for (oauth/scopes.ts), each needing its permission. */
const AUDIENCE_PERMISSION = { operator: 'act_as_operator', member: 'act_as_member' } as const;

/** Whether someone holding these roles may do this. */
export function may(roles: readonly string[], permission: Permission): boolean {
  return roles.some((r) => (ROLE_PERMISSIONS[r as Role] ?? []).includes(permission));
}

/** Whether these roles may act for a client of this audience at their school. */
export function mayActFor(audience: keyof typeof AUDIENCE_PERMISSION, roles: readonly string[]): boolean {
  return may(roles, AUDIENCE_PERMISSION[audience]);
}

/** A membership as stored or read: its roles (a list, or the JSON column) and status. */
export interface MembershipStanding {
  readonly roles: string | readonly string[] | null;
  readonly status: string | null;
}

/** The roles a membership gives: those of an active one, none otherwise (or without one). */
export function standingRoles(m: MembershipStanding | null | undefined): Role[] {
  if (m?.status !== 'active' || m.roles === null) return [];
  return typeof m.roles === 'string' ? parseRoles(m.roles) : parseRoles(JSON.stringify(m.roles));
}
