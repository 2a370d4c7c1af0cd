import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { problems } from '../errors/problem-error.ts';

/** Where uploads are sent: a path prefix, or a pattern of the whole path (a console page's form). */
export type UploadPath = string | RegExp;

/** Whether `path` takes uploads (and so the upload limit). */
export function isUploadPath(uploadPaths: readonly UploadPath[], path: string): boolean {
  return uploadPaths.some((p) => (typeof p === 'string' ? path.startsWith(p) : p.test(path)));
}

/**
 * Caps request bodies: `uploadLimit` for the paths listed in `uploadPaths`, `limit`
 * everywhere else, none on `ownLimits` (a sub-app that caps its own bodies, so that its own
 * `onError` words the refusal). Over the cap: a 413 problem, which the one error handler renders
 * in the surface's own format (invalid_request on OAuth paths).
 *
 * Hot path: touching `c.req.raw.body` makes the Node adapter build a full web Request, so a body
 * with a Content-Length is judged by the header alone (Node's HTTP parser never delivers more
 * than the declared length), and only chunked bodies are counted as they stream.
 */
export function bodyLimits(
  limit: number,
  uploadLimit: number,
  uploadPaths: readonly UploadPath[],
  ownLimits: readonly UploadPath[] = [],
): MiddlewareHandler {
  const streaming = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw problems.payloadTooLarge(maxSize);
      },
    });
  const normal = streaming(limit);
  const upload = streaming(uploadLimit);
  return (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next();
    if (isUploadPath(ownLimits, c.req.path)) return next();
    const isUpload = isUploadPath(uploadPaths, c.req.path);
    const maxSize = isUpload ? uploadLimit : limit;
    const declared = c.req.header('content-length');
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
      const length = Number(declared);
      if (!Number.isSafeInteger(length) || length < 0) {
        throw problems.badRequest('The Content-Length header is not a valid length.');
      }
      if (length > maxSize) throw problems.payloadTooLarge(maxSize);
      return next();
    }
    return isUpload ? upload(c, next) : normal(c, next);
  };
}
