import { z } from 'zod';
import { worded } from '../kernel/fields.ts';

/** Roles a person can hold at a school (product.md §2). */
export const ROLES = ['owner', 'admin', 'lecturer', 'student'] as const;
export type Role = (typeof ROLES)[number];

/** The roles an operator gives a person: a non-empty list of known roles (at most all four). */
export const RoleList = worded(
  z.array(z.enum(ROLES)).min(1).max(ROLES.length),
  `must be a non-empty list of ${ROLES.join(', ')}`,
);

/** A parsed role list in canonical order, each role once (what the roles column holds). */
export function canonicalRoles(roles: readonly Role[]): Role[] {
  return ROLES.filter((r) => roles.includes(r));
}

/** Parses the JSON roles column, keeping only known roles in canonical order. */
export function parseRoles(json: string): Role[] {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  return ROLES.filter((r) => raw.includes(r));
}

/** Canonical JSON for a set of roles (deduplicated, ordered). */
export function serializeRoles(roles: readonly string[]): string {
  return JSON.stringify(ROLES.filter((r) => roles.includes(r)));
}
