/**
 * Who may act at a school: one table of the roles and what each may do (product.md §2), and one
 * function every surface asks (the bearer check, grants and consent, the operator pages, the
 * account pages, the admin operations). A person's standing at a school is the roles of their
 * active membership there; an invited or a missing membership gives none.
 */
import { parseRoles, type Role } from './roles.ts';

/**
 * What a role may do:
 * - `act_as_member`: use member-audience clients (the Account API, member tools) for their own data;
 * - `act_as_operator`: use operator-audience clients and the operator pages to run the school;
 * - `manage_owners`: grant, change or remove the owner role, and invite owners;
 * - `teach`: open the operator pages of the courses they teach (their lecturer profile is on the
 *   course), and run there only `TEACHING_OPERATIONS`, only on those courses.
 */
export type Permission = 'act_as_member' | 'act_as_operator' | 'manage_owners' | 'teach';

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  owner: ['act_as_member', 'act_as_operator', 'manage_owners'],
  admin: ['act_as_member', 'act_as_operator'],
  lecturer: ['act_as_member', 'teach'],
  student: ['act_as_member'],
};

/**
 * The admin operations `teach` allows, on the courses the person teaches (product.md §8): read
 * those courses, change their curriculum and lecture content (uploading the files lectures show;
 * never listing or reading the school's other files, which may be another course's paid content),
 * read their students' enrollments and progress. Operator tokens stay owners' and admins': a
 * lecturer reaches these through the operator pages only.
 */
export const TEACHING_OPERATIONS: ReadonlySet<string> = new Set([
  'courses.list',
  'courses.get',
  'curriculum.get',
  'curriculum.get_section',
  'curriculum.get_lecture',
  'curriculum.create_section',
  'curriculum.update_section',
  'curriculum.delete_section',
  'curriculum.reorder_sections',
  'curriculum.create_lecture',
  'curriculum.update_lecture',
  'curriculum.delete_lecture',
  'curriculum.reorder_lectures',
  'students.list_enrollments',
  'students.get_enrollment',
  'students.get_progress',
  'storage.upload',
]);

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
