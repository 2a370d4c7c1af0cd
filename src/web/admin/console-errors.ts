/**
 * The console's `onError`: what a console handler throws, as a console page. A PageRedirect is
 * its redirect; a PageRefusal its page; a problem of the operations (admin/invoke.ts) below 500
 * the page that says it in words (the 404, the 403 that leads a lecturer to their courses, the
 * 413 of a form over the server's limit). Anything else is the app's (a 500).
 */
import type { ErrorHandler } from 'hono';
import { ProblemError } from '../../errors/problem-error.ts';
import { isUploadPath } from '../../http/body-limit.ts';
import { sendPage } from '../layout.ts';
import { messagePage } from '../shared/page-kit.ts';
import { PageRedirect, PageRefusal, type RefusalLink } from '../shared/refusal.ts';
import { type Area, areaPath } from './area.ts';
import { CONSOLE_UPLOAD_PATHS, type ConsoleContext, type ConsoleEnv } from './console-env.ts';
import { tooLargeBody } from './files-views.ts';

/**
 * Where the 413 page leads back to: the page the form was on (a course's curriculum editor, the
 * files page), else the school's console home. The path's segments are taken as they came.
 */
function tooLargeBack(path: string): RefusalLink {
  const curriculum = /^\/admin\/([^/]+)\/courses\/([^/]+)\/curriculum(?:\/|$)/.exec(path);
  if (curriculum) {
    return {
      href: `/admin/${curriculum[1]}/courses/${curriculum[2]}/curriculum`,
      label: 'Back to the curriculum',
    };
  }
  const school = /^\/admin\/([^/]+)(?:\/|$)/.exec(path)?.[1];
  if (!school) return { href: '/admin', label: 'Back to the admin area' };
  if (/^\/admin\/[^/]+\/files\/?$/.test(path))
    return { href: `/admin/${school}/files`, label: 'Back to the files' };
  return { href: `/admin/${school}`, label: 'Back to the admin area' };
}

/** The page of a form over the server's limit, saying what to do instead, and a way back. */
function tooLargePage(c: ConsoleContext): Promise<Response> {
  const { config } = c.var.app;
  const upload = isUploadPath(CONSOLE_UPLOAD_PATHS, c.req.path);
  const limit = upload ? config.uploadLimitBytes : config.bodyLimitBytes;
  const body = tooLargeBody(limit, 'en', tooLargeBack(c.req.path));
  return sendPage(c, 413, 'File too large', body, { formAction: ["'self'"] });
}

/** The area's home, or the console's when the request has no area yet. */
function home(area: Area | undefined): RefusalLink {
  return area
    ? { href: areaPath(area.school.id), label: 'Back to the admin area' }
    : { href: '/admin', label: 'Back to the admin area' };
}

/** An operation's refusal in a person's words (its detail is written for people). */
function problemRefusal(err: ProblemError, area: Area | undefined): PageRefusal {
  const headers = err.headers ?? {};
  // An id of another school, of no one, or not even id-shaped: the same "not found".
  const missing =
    err.status === 404 ||
    (err.status === 422 &&
      (err.errors ?? []).length > 0 &&
      err.errors!.every((e) => e.field.startsWith('params.')));
  if (missing) {
    return new PageRefusal(
      404,
      'Not found',
      'This school has no such item. It may have been deleted, or the link may be wrong.',
      {
        links: [home(area)],
        headers,
      },
    );
  }
  if (err.status === 403) {
    const links = area?.teaching
      ? [{ href: areaPath(area.school.id, '/courses'), label: 'Go to your courses' }]
      : [home(area)];
    return new PageRefusal(403, 'Not allowed', err.detail ?? err.title, { links, headers });
  }
  const fields = (err.errors ?? []).map(
    (e) => `${e.field.replace(/^(body|query|params)\./, '')}: ${e.message}.`,
  );
  const detail = fields.length > 0 ? fields.join(' ') : (err.detail ?? err.title);
  return new PageRefusal(err.status, 'Could not do that', detail, { links: [home(area)], headers });
}

/** A refusal as a page of its status, with its first way on (else the way to the account). */
async function refusalPage(c: ConsoleContext, refusal: PageRefusal): Promise<Response> {
  const back = refusal.links[0] ?? { href: '/account', label: 'Go to your account' };
  const res = await messagePage(c, refusal.status, refusal.title, refusal.detail, back);
  for (const [name, value] of Object.entries(refusal.headers)) res.headers.set(name, value);
  return res;
}

/** The console's error handler (see the module comment). */
export const consoleOnError: ErrorHandler<ConsoleEnv> = (err, c) => {
  if (err instanceof PageRedirect) return c.redirect(err.location, err.status);
  if (err instanceof PageRefusal) return refusalPage(c, err);
  if (err instanceof ProblemError && err.status === 413) return tooLargePage(c);
  const area: Area | undefined = c.get('area');
  if (err instanceof ProblemError && err.status < 500) return refusalPage(c, problemRefusal(err, area));
  throw err;
};
