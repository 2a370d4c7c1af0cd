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
 * - `manage_owners`: grant, change or remove the owner role, and invite owners.
 */
export type Permission = 'act_as_member' | 'act_as_operator' | 'manage_owners';

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  owner: ['act_as_member', 'act_as_operator', 'manage_owners'],
  admin: ['act_as_member', 'act_as_operator'],
  lecturer: ['act_as_member'],
  student: ['act_as_member'],
};

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
