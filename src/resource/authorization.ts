import { mayActFor, reachOf } from '../domain/school/standing.ts';
import { mayBeGranted } from '../oauth/scope-policy.ts';
import { type Audience, hasScope, OPERATOR_SCOPES, scopeAudience } from '../oauth/scopes.ts';
import type { Principal } from './principal.ts';

/** What one operation needs of a token: its audience (any when absent) and every scope it uses. */
export interface Requirement {
  readonly audience?: Audience;
  readonly scopes: readonly string[];
  /** How a refusal names the operation, e.g. `The tool coupons_create needs` (default `This request needs`). */
  readonly needs?: string;
}

/**
 * Why a valid token may not run an operation:
 * - `wrong_audience`: an operator token at a member surface or the reverse; no consent of this
 *   client can change that (spec §5.3), so it is never answered with a step-up;
 * - `not_an_operator`: an operator token whose person is no longer an owner or admin there;
 * - `insufficient_scope`: scopes are missing (RFC 6750 §3.1), from the token or from what the
 *   person's roles grant. `scopes` are the missing ones this client could be granted, for the
 *   step-up challenge; empty when it can be granted none of them (and always for a person on the
 *   operator pages, who has no client).
 */
export type Refusal =
  | { readonly reason: 'wrong_audience'; readonly audience: Audience; readonly description: string }
  | { readonly reason: 'not_an_operator'; readonly description: string }
  | {
      readonly reason: 'insufficient_scope';
      readonly scopes: readonly string[];
      readonly description: string;
    };

export type Decision = { readonly allowed: true } | ({ readonly allowed: false } & Refusal);

const ALLOWED: Decision = { allowed: true };

const SURFACE: Record<Audience, string> = {
  operator: 'school operators (the admin API and operator tools)',
  member: 'members (the Account API and member tools)',
};

/**
 * Whether the person's roles grant an operator scope (domain/school/standing.ts `ROLE_GRANTS`);
 * identity and member scopes are the token's alone.
 */
function rolesGrant(roles: readonly string[], scope: string): boolean {
  return scopeAudience(scope) !== 'operator' || reachOf(roles, scope) !== undefined;
}

/**
 * The scopes a person's roles grant them on the operator pages, where they act as themselves:
 * each operator scope a row of the standing table reaches, however far (the narrowing rule,
 * resource/narrowing.ts, then keeps a lecturer's to their courses). Never a scope their roles
 * do not grant.
 */
export function grantedScopes(roles: readonly string[]): ReadonlySet<string> {
  const key = roles.join(' ');
  let scopes = GRANTED_BY_ROLES.get(key);
  if (!scopes) {
    scopes = new Set(OPERATOR_SCOPES.filter((s) => reachOf(roles, s) !== undefined));
    GRANTED_BY_ROLES.set(key, scopes);
  }
  return scopes;
}

// A few role combinations exist (four roles); the expansion is kept per combination.
const GRANTED_BY_ROLES = new Map<string, ReadonlySet<string>>();

/**
 * The one authorization decision of every protected surface (REST, GraphQL, MCP, the operator
 * pages): the audience, the operator role where a client acts for operators, then every scope,
 * which the token must hold (the console's person: their roles' scopes) and the person's roles
 * must grant. Framework-free; surfaces only render it.
 */
export function decide(principal: Principal, need: Requirement): Decision {
  if (need.audience && principal.audience !== need.audience) {
    return {
      allowed: false,
      reason: 'wrong_audience',
      audience: need.audience,
      description:
        `This needs a token for ${SURFACE[need.audience]}; this token is for ${principal.audience}s. ` +
        (need.audience === 'member'
          ? 'Sign in with a member app of the school (the school hands out its client_id).'
          : 'Sign in with an operator client (a registered, vendor or metadata-document client).'),
    };
  }
  // Operator clients act for owners and admins only (product.md §4); a lecturer reaches their
  // courses as themselves, on the operator pages (no client).
  if (need.audience === 'operator' && principal.clientId !== '' && !mayActFor('operator', principal.roles)) {
    return {
      allowed: false,
      reason: 'not_an_operator',
      description: 'The token’s user is no longer an owner or admin of this school.',
    };
  }
  const missing = need.scopes.filter(
    (s) => !hasScope(principal.scopes, s) || !rolesGrant(principal.roles, s),
  );
  if (missing.length === 0) return ALLOWED;
  // A step-up can only add what the client may be granted and the person's roles grant.
  const grantable = missing.filter(
    (s) => principal.clientId !== '' && mayBeGranted(principal.client, s) && rolesGrant(principal.roles, s),
  );
  const refused = missing.filter((s) => !grantable.includes(s));
  const plural = missing.length > 1 ? 's' : '';
  return {
    allowed: false,
    reason: 'insufficient_scope',
    scopes: grantable,
    description:
      `${need.needs ?? 'This request needs'} the ${missing.join(' ')} scope${plural}.` +
      (refused.length > 0 ? ` This client may not be granted ${refused.join(' ')}.` : ''),
  };
}
