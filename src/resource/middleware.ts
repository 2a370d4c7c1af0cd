import type { Context, MiddlewareHandler } from 'hono';
import type { AppContext } from '../http/context.ts';
import { hasScope } from '../oauth/scopes.ts';
import { bearerChallenge } from './challenge.ts';
import type { Principal } from './principal.ts';
import { type BearerFailure, type BearerVerifier, createBearerVerifier } from './verifier.ts';

/** A refusal of a protected resource: 401 (token) or 403 (scope), with its challenge header. */
export interface BearerRefusal {
  readonly status: 401 | 403;
  readonly error: 'invalid_token' | 'insufficient_scope';
  readonly description: string;
  /** The full `WWW-Authenticate` header value. */
  readonly challenge: string;
  /** For 403: the scope the client should step up to. */
  readonly scope?: string;
}

/** Renders a refusal in the surface's own error format (OAuth JSON, problem, GraphQL, JSON-RPC). */
export type RefusalRenderer = (c: Context, refusal: BearerRefusal) => Response;

/** Default rendering: RFC 6750 header plus an RFC 6749 §5.2-style JSON body. */
export const oauthJsonRefusal: RefusalRenderer = (c, r) =>
  c.json({ error: r.error, error_description: r.description }, r.status, {
    'WWW-Authenticate': r.challenge,
    'Cache-Control': 'no-store',
  });

/** Turns a verification failure into a 401 refusal (product.md §6). */
export function tokenRefusal(
  baseUrl: string,
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
    challenge: bearerChallenge(baseUrl, {
      error,
      description: error ? failure.description : undefined,
      scope: challengeScopes,
    }),
  };
}

/** A 403 refusal naming the scope needed (RFC 6750 §3.1 insufficient_scope), so clients step up. */
export function scopeRefusal(baseUrl: string, scope: string, description?: string): BearerRefusal {
  // RFC 6750 §3: error_description may not contain '"' or '\\'.
  const text = description ?? `This request needs the ${scope} scope.`;
  return {
    status: 403,
    error: 'insufficient_scope',
    description: text,
    scope,
    challenge: bearerChallenge(baseUrl, { error: 'insufficient_scope', description: text, scope: [scope] }),
  };
}

/** Principal-carrying Hono environment for protected routes. */
export interface ProtectedEnv {
  Variables: { principal: Principal; requestId: string };
}

const verifiers = new WeakMap<AppContext, BearerVerifier>();

/** The verifier of an app context (one per context). */
export function bearerVerifier(ctx: AppContext): BearerVerifier {
  let v = verifiers.get(ctx);
  if (!v) {
    v = createBearerVerifier(ctx);
    verifiers.set(ctx, v);
  }
  return v;
}

/**
 * Requires a valid bearer token (and optionally a scope); sets `principal`. Thin: all logic
 * lives in the framework-free verifier.
 */
export function requireBearer(
  ctx: AppContext,
  options: {
    challengeScopes: readonly string[];
    scope?: string;
    errorWhenMissing?: boolean;
    render?: RefusalRenderer;
  },
): MiddlewareHandler<ProtectedEnv> {
  const verifier = bearerVerifier(ctx);
  const render = options.render ?? oauthJsonRefusal;
  return async (c, next) => {
    const result = await verifier.verify(c.req.header('authorization'));
    if (!result.ok) {
      return render(
        c,
        tokenRefusal(ctx.config.baseUrl, result, options.challengeScopes, options.errorWhenMissing),
      );
    }
    if (options.scope && !hasScope(result.principal.scopes, options.scope)) {
      return render(c, scopeRefusal(ctx.config.baseUrl, options.scope));
    }
    c.set('principal', result.principal);
    await next();
  };
}
