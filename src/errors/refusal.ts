import type { Context, Env, ErrorHandler } from 'hono';
import { type ProblemError, problem } from './problem-error.ts';

/** What a bearer refusal says: a token refusal, or the reason of the one authorization decision. */
type RefusalCode = 'invalid_token' | 'wrong_audience' | 'not_an_operator' | 'insufficient_scope';

/**
 * A refusal of a protected resource: 401 (token) or 403 (audience, role or scope). It carries a
 * `WWW-Authenticate` challenge only where the client can act on one: a 401, or a 403 naming
 * scopes this client may be granted (RFC 6750 §3.1 step-up). A refusal no consent can lift has
 * none, so no client loops into a consent it can never pass.
 */
export interface BearerRefusal {
  readonly status: 401 | 403;
  readonly error: RefusalCode;
  readonly description: string;
  /** The full `WWW-Authenticate` header value, when there is one. */
  readonly challenge?: string;
  /** For a step-up: the scopes to ask for, space-separated. */
  readonly scope?: string;
}

/**
 * A refusal on its way to the surface that renders it: thrown by the one bearer step
 * (resource/middleware.ts) and answered by the sub-app's `onError` in the surface's format.
 */
export class RefusalError extends Error {
  override name = 'RefusalError';
  readonly refusal: BearerRefusal;
  constructor(refusal: BearerRefusal) {
    super(refusal.description);
    this.refusal = refusal;
  }
}

/** The `WWW-Authenticate` header of a refusal, or none. */
export function challengeHeaders(r: BearerRefusal): Record<string, string> {
  return r.challenge ? { 'WWW-Authenticate': r.challenge } : {};
}

/** Default rendering: RFC 6750 header plus an RFC 6749 §5.2-style JSON body. */
export function oauthJsonRefusal(c: Context, r: BearerRefusal): Response {
  return c.json({ error: r.error, error_description: r.description }, r.status, {
    ...challengeHeaders(r),
    'Cache-Control': 'no-store',
  });
}

/** A refusal as a problem (RFC 9457): its code, the description as detail, the challenge. */
export function refusalProblem(r: BearerRefusal): ProblemError {
  return problem(r.error, { detail: r.description, headers: challengeHeaders(r) });
}

/**
 * A sub-app's `onError`: the refusals its routes throw are rendered in the surface's format;
 * anything else goes on to the app's one handler (handler.ts).
 */
export function renderRefusals<E extends Env>(
  render: (c: Context<E>, refusal: BearerRefusal, thrown: RefusalError) => Response | Promise<Response>,
): ErrorHandler<E> {
  return (err, c) => {
    if (err instanceof RefusalError) return render(c, err.refusal, err);
    throw err;
  };
}
