import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import { OAuthError } from './oauth-error.ts';
import type { ProblemCode } from './problem-codes.ts';
import { ProblemError, problem, problems } from './problem-error.ts';
import { oauthJsonRefusal, RefusalError } from './refusal.ts';

const OAUTH_PATH = /^\/(api\/oauth|oauth)\//;

/** The request's id (hono/request-id), for the answer and every log line about the request. */
function requestIdOf(c: Context): string | undefined {
  return c.get('requestId') as string | undefined;
}

/** RFC 9457 body for a problem; `instance` is the request path. */
export function problemResponse(c: Context, p: ProblemError): Response {
  const body: Record<string, unknown> = {
    type: `about:blank`,
    title: p.title,
    status: p.status,
    code: p.code,
    detail: p.detail,
    instance: c.req.path,
  };
  if (p.errors) body.errors = p.errors;
  const requestId = requestIdOf(c);
  if (requestId) body.request_id = requestId;
  return c.body(JSON.stringify(body), p.status as 400, {
    'Content-Type': 'application/problem+json',
    ...p.headers,
  });
}

/** RFC 6749 §5.2 body; token-endpoint responses must not be cached (§5.1). */
function oauthErrorResponse(c: Context, e: OAuthError): Response {
  return c.body(JSON.stringify({ error: e.error, error_description: e.description }), e.status as 400, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    ...e.headers,
  });
}

/**
 * The one place errors become responses (architecture style rule 1). Known families keep their
 * format; anything else is logged with its cause and answered without internals. A sub-app whose
 * surface speaks another format renders its refusals first (refusal.ts, `renderRefusals`).
 */
export function createErrorHandler(logger: Logger) {
  return (thrown: Error, c: Context): Response => {
    let err = thrown;
    // A bearer refusal no sub-app rendered in its own format: RFC 6750's own answer.
    if (err instanceof RefusalError) return oauthJsonRefusal(c, err.refusal);
    if (!(err instanceof OAuthError || err instanceof ProblemError) && clientWentAway(c)) {
      // Reading the body failed because the client hung up: nothing of ours broke and nobody
      // will read the answer. One quiet line, no stack (the stack is Node's, not ours).
      logger.debug(
        { path: c.req.path, method: c.req.method, reason: err.message, requestId: requestIdOf(c) },
        'client closed the connection before its request was read',
      );
      err = problems.badRequest('The request body did not arrive in full.');
    }
    if (err instanceof OAuthError) {
      if (err.status >= 500)
        logger.error({ err, path: c.req.path, requestId: requestIdOf(c) }, 'oauth server error');
      return oauthErrorResponse(c, err);
    }
    if (err instanceof ProblemError) {
      if (err.status >= 500)
        logger.error({ err, path: c.req.path, requestId: requestIdOf(c) }, 'server problem');
      // OAuth endpoints answer in RFC 6749 §5.2 JSON even for problems raised below them.
      if (err.status < 500 && OAUTH_PATH.test(c.req.path)) {
        const description = err.detail ?? err.title;
        return oauthErrorResponse(c, new OAuthError('invalid_request', description, { status: err.status }));
      }
      return problemResponse(c, err);
    }
    if (err instanceof HTTPException) {
      const status = err.status;
      if (OAUTH_PATH.test(c.req.path)) {
        return oauthErrorResponse(
          c,
          new OAuthError('invalid_request', err.message || 'Bad request.', { status }),
        );
      }
      return problemResponse(c, new ProblemError(status, httpCode(status), err.message || 'Error'));
    }
    logger.error(
      { err, path: c.req.path, method: c.req.method, requestId: requestIdOf(c) },
      'unhandled error',
    );
    if (OAUTH_PATH.test(c.req.path)) {
      return oauthErrorResponse(
        c,
        new OAuthError('server_error', 'The server could not complete the request.'),
      );
    }
    return problemResponse(
      c,
      problem('internal_error', {
        detail: 'The server could not complete the request.',
      }),
    );
  };
}

/**
 * True when the request's connection is gone before its message arrived in full. Under
 * @hono/node-server the Node request is in `c.env.incoming`; elsewhere (app.request in tests)
 * the Request's abort signal says the same.
 */
function clientWentAway(c: Context): boolean {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming) return !incoming.complete && (incoming.destroyed || incoming.readableAborted);
  return c.req.raw.signal.aborted;
}

function httpCode(status: number): ProblemCode {
  if (status === 413) return 'payload_too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status === 404) return 'not_found';
  if (status === 405) return 'method_not_allowed';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  return status >= 500 ? 'internal_error' : 'bad_request';
}
