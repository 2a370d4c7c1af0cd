import { OAuthError } from '../errors/oauth-error.ts';
import type { OAuthClient } from './clients/client-row.ts';
import {
  ACCOUNT_CHALLENGE_SCOPES,
  ALL_SCOPES,
  type Audience,
  formatScopes,
  IDENTITY_SCOPES,
  MCP_CHALLENGE_SCOPES,
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
function clientAudience(client: Pick<OAuthClient, 'kind'>): Audience {
  return client.kind === 'member' ? 'member' : 'operator';
}

const isIdentity = (s: string) => (IDENTITY_SCOPES as readonly string[]).includes(s);

/** What decides a client's scopes: its kind, its review and what its operator allowed. */
export type ScopedClient = Pick<OAuthClient, 'kind' | 'reviewed' | 'allowedScopes'>;

/**
 * Could this client ever be granted `scope`? The one statement of product.md §3–§4 that
 * authorization requests, default scopes and step-up challenges all follow: member apps get
 * what their operator allowed (never operator scopes); other clients never `account:*`, and
 * unreviewed CIMD clients read and identity scopes only.
 */
export function mayBeGranted(client: ScopedClient, scope: string): boolean {
  if (clientAudience(client) === 'member') {
    if (scopeAudience(scope) === 'operator') return false;
    return client.allowedScopes ? client.allowedScopes.includes(scope) : true;
  }
  if (scopeAudience(scope) === 'member') return false;
  if (client.kind === 'cimd' && !client.reviewed) return isIdentity(scope) || scope.endsWith(':read');
  return !client.allowedScopes || isIdentity(scope) || client.allowedScopes.includes(scope);
}

/**
 * RFC 6749 §3.3: the pre-defined scope an authorization request without `scope` gets. Operator
 * clients: what the `/mcp` 401 challenge names (identity and every operator read scope); member
 * apps: what the `/account/graphql` challenge names (`openid account:read`). Either within what
 * the client may be granted; nothing left is `invalid_scope`.
 */
function defaultScopes(client: ScopedClient): string[] {
  const base = clientAudience(client) === 'member' ? ACCOUNT_CHALLENGE_SCOPES : MCP_CHALLENGE_SCOPES;
  const granted = base.filter((s) => mayBeGranted(client, s));
  if (granted.length === 0) {
    const allowed = ALL_SCOPES.filter((s) => mayBeGranted(client, s));
    throw new OAuthError(
      'invalid_scope',
      `No scope was requested and this client has no default; it may ask for: ${allowed.join(' ')}.`,
    );
  }
  return sortScopes(granted);
}

/**
 * The names of a `scope` parameter (RFC 6749 §3.3: `scope-token *( SP scope-token )`). An empty
 * name (leading, trailing or doubled spaces) is malformed; a repeated name is counted once.
 */
function requestedScopes(value: string): string[] {
  if (value.split(' ').some((name) => name === '')) {
    throw new OAuthError(
      'invalid_scope',
      'The scope parameter is malformed: scope names are separated by single spaces (RFC 6749 §3.3).',
    );
  }
  return parseScopes(value);
}

/**
 * The scopes a client may get for a requested scope string (product.md §3–§4, spec §5.3).
 * Throws `invalid_scope` rather than silently dropping what it cannot grant, except for member
 * apps, which get the requested scopes their operator allowed (the response's `scope` says so).
 * An omitted (or empty, RFC 6749 §3.1) scope gets the client's default.
 */
export function decideScopes(
  client: OAuthClient,
  requestedValue: string | undefined,
  baseUrl?: string,
): ScopeDecision {
  const audience = clientAudience(client);
  if (!requestedValue) return { audience, scopes: defaultScopes(client) };
  const requested = requestedScopes(requestedValue);
  // Unknown names are an error, never dropped (product.md §4).
  const unknown = unknownScopes(requested);
  if (unknown.length > 0) {
    throw new OAuthError('invalid_scope', `Unknown scope: ${unknown.join(' ')}.`);
  }
  return audience === 'member'
    ? { audience, scopes: memberScopes(client, requested) }
    : { audience, scopes: operatorScopes(client, requested, baseUrl) };
}

function memberScopes(client: OAuthClient, requested: string[]): string[] {
  // A member token reads one person's data: operator scopes are never part of it, whatever
  // the app's configuration says.
  const granted = requested.filter((s) => mayBeGranted(client, s));
  if (granted.filter((s) => s !== 'offline_access').length === 0) {
    const allowed = ALL_SCOPES.filter((s) => mayBeGranted(client, s));
    throw new OAuthError(
      'invalid_scope',
      `None of the requested scopes is allowed for this app; it may ask for: ${allowed.join(' ')}.`,
    );
  }
  return sortScopes(granted);
}

/**
 * The `/auth.md` section that says how a host connects, by the name its client carries (the
 * vendor's `client_name`, or the name a host registers with); other clients get the scope rules.
 * The anchors are the headings' slugs.
 */
export const HOST_GUIDE_SECTIONS: Readonly<Record<string, string>> = {
  claude: 'claude-claudeai-and-claude-code',
  'claude code': 'claude-claudeai-and-claude-code',
  chatgpt: 'chatgpt',
  codex: 'codex-cli',
  cursor: 'cursor',
  'visual studio code': 'vs-code',
  'gemini cli mcp client': 'gemini-cli',
  windsurf: 'windsurf',
};

/** Where a client's person or developer reads how to ask for scopes it can be granted. */
export function guideSection(client: Pick<OAuthClient, 'name'>): string {
  return HOST_GUIDE_SECTIONS[client.name.trim().toLowerCase()] ?? '3-audiences-and-scopes';
}

function operatorScopes(client: OAuthClient, requested: string[], baseUrl: string | undefined): string[] {
  const refused = requested.filter((s) => !mayBeGranted(client, s));
  if (refused.length === 0) return sortScopes(requested);
  // Spec §5.3: account:* is reserved to the member audience. Hosts that ask for every advertised
  // scope land here; the description (RFC 6749 §5.2 characters only) names their guide section.
  const member = refused.filter((s) => scopeAudience(s) === 'member');
  if (member.length > 0) {
    const guide = baseUrl ? ` (see ${baseUrl}/auth.md#${guideSection(client)})` : '';
    throw new OAuthError(
      'invalid_scope',
      `${member.join(' ')} ${member.length > 1 ? 'are' : 'is'} reserved to member apps created by a school; this client acts for school operators: ask for operator scopes, or for none to get the default${guide}.`,
    );
  }
  // Spec §2.2 / product.md §3: an unreviewed CIMD client gets read and identity scopes only.
  if (client.kind === 'cimd' && !client.reviewed) {
    throw new OAuthError(
      'invalid_scope',
      `This client is not reviewed yet and may request read and identity scopes only, not: ${refused.join(' ')}.`,
    );
  }
  throw new OAuthError('invalid_scope', `This client is not allowed the scopes: ${refused.join(' ')}.`);
}

/**
 * A narrowed scope set for a refresh (RFC 6749 §6): a subset of what was granted, or all of it
 * when nothing was asked. Broadening is `invalid_scope`.
 */
export function narrowScopes(granted: readonly string[], requestedValue: string | undefined): string[] {
  if (requestedValue === undefined) return [...granted];
  if (requestedValue.trim() === '') throw new OAuthError('invalid_scope', 'The scope parameter is empty.');
  const requested = requestedScopes(requestedValue);
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
