import { findMembership } from '../../domain/school/memberships.ts';
import { findUserById } from '../../domain/school/users.ts';
import type { AppContext } from '../../http/context.ts';

/** The identity claims of spec §2.4 as both UserInfo and the id_token carry them. */
export interface IdentityClaims {
  sub: string;
  email?: string;
  name?: string;
  org_id?: string;
  roles?: string[];
}

/**
 * Identity claims gated by scope (OIDC Core §5.4): `sub` always, `email` with `email`, `name`
 * with `profile`, `org_id` and `roles` with `openid`. One function feeds UserInfo and the
 * id_token, so the two always agree (spec §2.4, §5.5).
 */
export async function identityClaims(
  ctx: AppContext,
  userId: string,
  schoolId: string,
  scopes: ReadonlySet<string> | readonly string[],
  /** The user's roles at the school when the caller already read them (saves a query). */
  knownRoles?: readonly string[],
  /** The user's email and name when the caller already read them (saves a query). */
  knownUser?: { readonly email: string; readonly name: string },
): Promise<IdentityClaims> {
  const has = (s: string) =>
    scopes instanceof Set ? scopes.has(s) : (scopes as readonly string[]).includes(s);
  const claims: IdentityClaims = { sub: userId };
  const user =
    has('email') || has('profile') ? (knownUser ?? (await findUserById(ctx.db, userId))) : undefined;
  if (has('email') && user) claims.email = user.email;
  if (has('profile') && user) claims.name = user.name;
  if (has('openid')) {
    claims.org_id = schoolId;
    claims.roles = knownRoles
      ? [...knownRoles]
      : ((await findMembership(ctx.db, schoolId, userId))?.roles ?? []);
  }
  return claims;
}
