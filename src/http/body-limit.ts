import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { OAuthError } from '../errors/oauth-error.ts';
import { problems } from '../errors/problem-error.ts';

const OAUTH_PATH = /^\/(api\/oauth|oauth)\//;

/**
 * Caps request bodies: `uploadLimit` for the paths listed in `uploadPrefixes`, `limit`
 * everywhere else. Over the cap: 413 in the surface's own error format.
 */
export function bodyLimits(
  limit: number,
  uploadLimit: number,
  uploadPrefixes: readonly string[],
): MiddlewareHandler {
  const make = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: (c) => {
        if (OAUTH_PATH.test(c.req.path)) {
          throw new OAuthError('invalid_request', `The request body exceeds ${maxSize} bytes.`, {
            status: 413,
          });
        }
        throw problems.payloadTooLarge(maxSize);
      },
    });
  const normal = make(limit);
  const upload = make(uploadLimit);
  return (c, next) =>
    uploadPrefixes.some((p) => c.req.path.startsWith(p)) ? upload(c, next) : normal(c, next);
}
