import { OAuthError } from '../errors/oauth-error.ts';
import type { OAuthClient } from './clients.ts';
import {
  type Audience,
  formatScopes,
  IDENTITY_SCOPES,
  MEMBER_SCOPES,
  parseScopes,
  scopeAudience,
  unknownScopes,
} from './scopes.ts';

/** What a client is granted for a request: the audience of its tokens and the scopes. */
export interface ScopeDecision {
  readonly audience: Audience;
  readonly scopes: string[];
}

/** Member apps act for the member audience; every other kind for the operator audience. */
export function clientAudience(client: Pick<OAuthClient, 'kind'>): Audience {
  return client.kind === 'member' ? 'member' : 'operator';
}

const isIdentity = (s: string) => (IDENTITY_SCOPES as readonly string[]).includes(s);

/**
 * The scopes a client may get for a requested scope string (product.md §3–§4, spec §5.3).
 * Throws `invalid_scope` rather than silently dropping what it cannot grant, except for member
 * apps, which get the requested scopes their operator allowed (the response's `scope` says so).
 */
export function decideScopes(client: OAuthClient, requestedValue: string | undefined): ScopeDecision {
  const requested = parseScopes(requestedValue);
  if (requested.length === 0) {
    throw new OAuthError('invalid_scope', 'The scope parameter must name at least one scope.');
  }
  // Unknown names are an error, never dropped (product.md §4).
  const unknown = unknownScopes(requested);
  if (unknown.length > 0) {
    throw new OAuthError('invalid_scope', `Unknown scope: ${unknown.join(' ')}.`);
  }
  const audience = clientAudience(client);
  return audience === 'member'
    ? { audience, scopes: memberScopes(client, requested) }
    : { audience, scopes: operatorScopes(client, requested) };
}

function memberScopes(client: OAuthClient, requested: string[]): string[] {
  // A member token reads one person's data: operator scopes are never part of it, whatever
  // the app's configuration says.
  const allowed = new Set(
    (client.allowedScopes ?? [...MEMBER_SCOPES, 'openid', 'profile', 'email']).filter(
      (s) => scopeAudience(s) !== 'operator',
    ),
  );
  const granted = requested.filter((s) => allowed.has(s));
  if (granted.filter((s) => s !== 'offline_access').length === 0) {
    throw new OAuthError(
      'invalid_scope',
      `None of the requested scopes is allowed for this app; it may ask for: ${formatScopes(allowed)}.`,
    );
  }
  return sortScopes(granted);
}

function operatorScopes(client: OAuthClient, requested: string[]): string[] {
  // Spec §5.3: account:* is reserved to the member audience.
  const member = requested.filter((s) => scopeAudience(s) === 'member');
  if (member.length > 0) {
    throw new OAuthError(
      'invalid_scope',
      `${member.join(' ')} is reserved to member apps created by a school; this client acts for school operators.`,
    );
  }
  // Spec §2.2 / product.md §3: an unreviewed CIMD client gets read and identity scopes only.
  if (client.kind === 'cimd' && !client.reviewed) {
    const beyond = requested.filter((s) => !isIdentity(s) && !s.endsWith(':read'));
    if (beyond.length > 0) {
      throw new OAuthError(
        'invalid_scope',
        `This client is not reviewed yet and may request read and identity scopes only, not: ${beyond.join(' ')}.`,
      );
    }
  }
  if (client.allowedScopes) {
    const allowed = new Set(client.allowedScopes);
    const beyond = requested.filter((s) => !allowed.has(s) && !isIdentity(s));
    if (beyond.length > 0) {
      throw new OAuthError('invalid_scope', `This client is not allowed the scopes: ${beyond.join(' ')}.`);
    }
  }
  return sortScopes(requested);
}

/**
 * A narrowed scope set for a refresh (RFC 6749 §6): a subset of what was granted, or all of it
 * when nothing was asked. Broadening is `invalid_scope`.
 */
export function narrowScopes(granted: readonly string[], requestedValue: string | undefined): string[] {
  if (requestedValue === undefined) return [...granted];
  const requested = parseScopes(requestedValue);
  if (requested.length === 0) throw new OAuthError('invalid_scope', 'The scope parameter is empty.');
  const have = new Set(granted);
  const beyond = requested.filter((s) => !have.has(s));
  if (beyond.length > 0) {
    throw new OAuthError(
      'invalid_scope',
      `A refresh may narrow the granted scopes but not add to them: ${beyond.join(' ')} was not granted.`,
    );
  }
  return sortScopes(requested);
}

function sortScopes(scopes: readonly string[]): string[] {
  return parseScopes(formatScopes(scopes));
}
