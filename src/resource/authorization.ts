import { mayActFor } from '../domain/school/standing.ts';
import { mayBeGranted } from '../oauth/scope-policy.ts';
import { type Audience, hasScope } from '../oauth/scopes.ts';
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
 * - `insufficient_scope`: scopes are missing (RFC 6750 §3.1). `scopes` are the missing ones this
 *   client could be granted, for the step-up challenge; empty when it can be granted none of them.
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
 * The one authorization decision of every protected surface (REST, GraphQL, MCP): the audience,
 * the operator role where it matters, then every scope. Framework-free; surfaces only render it.
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
  if (need.audience === 'operator' && !mayActFor('operator', principal.roles)) {
    return {
      allowed: false,
      reason: 'not_an_operator',
      description: 'The token’s user is no longer an owner or admin of this school.',
    };
  }
  const missing = need.scopes.filter((s) => !hasScope(principal.scopes, s));
  if (missing.length === 0) return ALLOWED;
  const grantable = missing.filter((s) => mayBeGranted(principal.client, s));
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
