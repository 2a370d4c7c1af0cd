import type { Context, MiddlewareHandler } from 'hono';
import { noteClient } from '../http/access-log.ts';
import type { AppContext } from '../http/context.ts';
import { type ResourcePath, resourceMetadataUrl } from '../oauth/resource-param.ts';
import { decide, type Refusal, type Requirement } from './authorization.ts';
import { bearerChallenge } from './challenge.ts';
import type { Principal } from './principal.ts';
import type { BearerFailure } from './verifier.ts';

/**
 * A refusal of a protected resource: 401 (token) or 403 (audience, role or scope). It carries a
 * `WWW-Authenticate` challenge only where the client can act on one: a 401, or a 403 naming
 * scopes this client may be granted (RFC 6750 §3.1 step-up). A refusal no consent can lift has
 * none, so no client loops into a consent it can never pass.
 */
export interface BearerRefusal {
  readonly status: 401 | 403;
  readonly error: 'invalid_token' | Refusal['reason'];
  readonly description: string;
  /** The full `WWW-Authenticate` header value, when there is one. */
  readonly challenge?: string;
  /** For a step-up: the scopes to ask for, space-separated. */
  readonly scope?: string;
}

/** The `WWW-Authenticate` header of a refusal, or none. */
export function challengeHeaders(r: BearerRefusal): Record<string, string> {
  return r.challenge ? { 'WWW-Authenticate': r.challenge } : {};
}

/** Renders a refusal in the surface's own error format (OAuth JSON, problem, GraphQL, JSON-RPC). */
export type RefusalRenderer = (c: Context, refusal: BearerRefusal) => Response;

/** Default rendering: RFC 6750 header plus an RFC 6749 §5.2-style JSON body. */
export const oauthJsonRefusal: RefusalRenderer = (c, r) =>
  c.json({ error: r.error, error_description: r.description }, r.status, {
    ...challengeHeaders(r),
    'Cache-Control': 'no-store',
  });

/** Turns a verification failure into a 401 refusal (product.md §6). */
export function tokenRefusal(
  metadataUrl: string,
  failure: BearerFailure,
  challengeScopes: readonly string[],
  errorWhenMissing = false,
): BearerRefusal {
  // RFC 6750 §3.1: no error code when no credentials were sent, unless the surface's spec says so.
  const error = failure.tokenPresented || errorWhenMissing ? 'invalid_token' : undefined;
  return {
    status: 401,
    error: 'invalid_token',
    description: failure.description,
    challenge: bearerChallenge(metadataUrl, {
      error,
      description: error ? failure.description : undefined,
      scope: challengeScopes,
    }),
  };
}

/** How a surface shows the one authorization decision's refusal (resource/authorization.ts). */
export function decisionRefusal(metadataUrl: string, refusal: Refusal): BearerRefusal {
  const base = { status: 403, error: refusal.reason, description: refusal.description } as const;
  if (refusal.reason !== 'insufficient_scope' || refusal.scopes.length === 0) return base;
  // RFC 6750 §3.1: name every scope to step up to, in one challenge.
  const scope = refusal.scopes.join(' ');
  return {
    ...base,
    scope,
    challenge: bearerChallenge(metadataUrl, {
      error: 'insufficient_scope',
      description: refusal.description,
      scope: refusal.scopes,
    }),
  };
}

/** Principal-carrying Hono environment for protected routes. */
export interface ProtectedEnv {
  Variables: { principal: Principal; requestId: string };
}

/**
 * Requires a valid bearer token (and optionally meets a requirement); sets `principal`. Thin:
 * verification and the decision live in the framework-free verifier and authorization.ts.
 */
export function requireBearer(
  ctx: AppContext,
  options: {
    challengeScopes: readonly string[];
    need?: Requirement;
    errorWhenMissing?: boolean;
    render?: RefusalRenderer;
    /** Which of this origin's resources refuses: its metadata is what the challenge points at. */
    resource?: ResourcePath;
  },
): MiddlewareHandler<ProtectedEnv> {
  const verifier = ctx.verifier;
  const metadataUrl = resourceMetadataUrl(ctx.config.baseUrl, options.resource);
  const render = options.render ?? oauthJsonRefusal;
  return async (c, next) => {
    const result = await verifier.verify(c.req.header('authorization'));
    if (!result.ok) {
      return render(c, tokenRefusal(metadataUrl, result, options.challengeScopes, options.errorWhenMissing));
    }
    if (options.need) {
      const decision = decide(result.principal, options.need);
      if (!decision.allowed) return render(c, decisionRefusal(metadataUrl, decision));
    }
    noteClient(c, result.principal.clientId);
    c.set('principal', result.principal);
    await next();
  };
}
