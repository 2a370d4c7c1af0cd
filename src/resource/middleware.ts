import type { Context, MiddlewareHandler } from 'hono';
import { type BearerRefusal, RefusalError } from '../errors/refusal.ts';
import { noteClient } from '../http/access-log.ts';
import type { AppContext, AppEnv } from '../http/context.ts';
import { type ResourcePath, resourceMetadataUrl } from '../oauth/metadata/resource-param.ts';
import { decide, type Refusal, type Requirement } from './authorization.ts';
import { bearerChallenge } from './challenge.ts';
import type { Principal } from './principal.ts';
import type { BearerFailure } from './verifier.ts';

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

/** How one surface asks for a bearer token. */
export interface BearerOptions {
  /** The scopes a 401's challenge names. */
  readonly challengeScopes: readonly string[];
  /** What the token must allow (the one decision, authorization.ts); checked once it is valid. */
  readonly need?: Requirement;
  /** Answer a request without credentials with `error="invalid_token"` too (the Account API). */
  readonly errorWhenMissing?: boolean;
  /** Which of this origin's resources refuses: its metadata is what the challenge points at. */
  readonly resource?: ResourcePath;
}

/**
 * The one bearer step of every protected surface: verifies the `Authorization` header, notes the
 * token's client for the access log, meets the requirement, and returns the principal; anything
 * else is thrown as a RefusalError for the sub-app's `onError` to render in its own format.
 * With `anonymous`, a request that presents no credentials goes on as `null` instead.
 */
export function bearerStep(
  ctx: AppContext,
  options: BearerOptions & { readonly anonymous: true },
): (c: Context) => Promise<Principal | null>;
export function bearerStep(ctx: AppContext, options: BearerOptions): (c: Context) => Promise<Principal>;
export function bearerStep(
  ctx: AppContext,
  options: BearerOptions & { readonly anonymous?: boolean },
): (c: Context) => Promise<Principal | null> {
  const verifier = ctx.verifier;
  // Built once per surface: the challenge's pointer at the resource's metadata (RFC 9728 §5.1).
  const metadataUrl = resourceMetadataUrl(ctx.config.baseUrl, options.resource);
  const { need, anonymous = false } = options;
  return async (c) => {
    const result = await verifier.verify(c.req.header('authorization'));
    if (!result.ok) {
      if (anonymous && !result.tokenPresented) return null;
      throw new RefusalError(
        tokenRefusal(metadataUrl, result, options.challengeScopes, options.errorWhenMissing),
      );
    }
    const principal = result.principal;
    noteClient(c, principal.clientId);
    if (need) {
      const decision = decide(principal, need);
      if (!decision.allowed) throw new RefusalError(decisionRefusal(metadataUrl, decision));
    }
    return principal;
  };
}

/** Principal-carrying Hono environment for protected routes: the app's, plus the principal. */
export interface ProtectedEnv extends AppEnv {
  Variables: AppEnv['Variables'] & { principal: Principal };
}

/**
 * The bearer step as middleware: sets `principal`. A refusal is thrown; the app's handler answers
 * it in OAuth JSON (RFC 6750 §3) unless the sub-app's `onError` renders it another way.
 */
export function requireBearer(ctx: AppContext, options: BearerOptions): MiddlewareHandler<ProtectedEnv> {
  const authenticate = bearerStep(ctx, options);
  return async (c, next) => {
    c.set('principal', await authenticate(c));
    await next();
  };
}
