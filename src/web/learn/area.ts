/**
 * The learning area as one sub-app's parts: its typed context (`learner`, and the POSTed form),
 * the middleware that finds the learner and checks every POST's CSRF token once, and the
 * `onError` that renders thrown refusals (PageRefusal, PageRedirect, the domain's ProblemError)
 * in the area's own chrome.
 */
import type { Context, ErrorHandler, MiddlewareHandler } from 'hono';
import { html } from 'hono/html';
import { ProblemError } from '../../errors/problem-error.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { CSRF_FIELD, verifyCsrf } from '../../http/sessions.ts';
import { isFormRequest } from '../../oauth/form-body.ts';
import { sendPage } from '../layout.ts';
import { notice } from '../shared/page-kit.ts';
import { PageRedirect, PageRefusal, type RefusalLink, refusals } from '../shared/refusal.ts';
import { type Learner, learnerOfRequest, learnPath, notFound } from './access.ts';

/** The learning area's Hono environment: who is learning, and the checked form of a POST. */
export interface LearnEnv {
  Variables: AppEnv['Variables'] & {
    learner: Learner;
    /** A POST's form fields, its CSRF token checked; empty on a GET. */
    form: URLSearchParams;
  };
}

/** A handler of the area. */
export type LearnHandler = (c: Context<LearnEnv>) => Promise<Response>;

/**
 * Finds the learner (a signed-in member of the path's school) and, on a POST, reads its form and
 * checks its synchronizer token (OWASP CSRF cheat sheet), so a forged cross-site POST changes
 * nothing. Refusals are thrown, for `onError`.
 */
export function learnerMiddleware(ctx: AppContext): MiddlewareHandler<LearnEnv> {
  return async (c, next) => {
    const learner = await learnerOfRequest(ctx, c);
    c.set('learner', learner);
    if (c.req.method === 'POST') {
      if (!isFormRequest(c)) throw refusals.unsupportedForm();
      const form = new URLSearchParams(await c.req.text());
      if (!verifyCsrf(ctx, c, form.get(CSRF_FIELD) ?? undefined, learner.viewer.session)) {
        throw refusals.formExpired([{ href: learnPath(learner.school), label: 'Go to My courses' }]);
      }
      c.set('form', form);
    } else {
      c.set('form', new URLSearchParams());
    }
    await next();
  };
}

/** A page with one message inside the learning area, with ways on. */
function learnMessage(
  c: Context,
  status: number,
  title: string,
  message: string,
  links: readonly RefusalLink[],
): Promise<Response> {
  const body = html`<h1>${title}</h1>
${notice(status >= 400 ? 'error' : 'success', message)}
<ul>${links.map((l) => html`<li><a href="${l.href}">${l.label}</a></li>`)}</ul>`;
  return sendPage(c, status, title, body, { formAction: ["'self'"] });
}

/** A domain refusal (a member function's ProblemError) in the learning area's words. */
function problemRefusal(err: ProblemError, learner: Learner | undefined): PageRefusal | undefined {
  const links = learner ? [{ href: learnPath(learner.school), label: 'Go to My courses' }] : [];
  switch (err.code) {
    case 'not_found':
    case 'lecture_not_found':
      return notFound(learner?.school);
    case 'not_enrolled':
      return new PageRefusal(
        403,
        "You're not enrolled in this course",
        'Only students of this course can record progress in it.',
        { links },
      );
    case 'access_expired':
      return new PageRefusal(
        403,
        'Your access has ended',
        'Your access to this course has ended; contact the school to renew it.',
        { links },
      );
    case 'quiz_not_passed':
      return new PageRefusal(
        422,
        'Answer the quiz to complete it',
        'A quiz is complete once every answer is right: answer its questions and press Check answers.',
        { links },
      );
    default:
      return undefined;
  }
}

/** The area's `onError`: thrown refusals as the area's pages; anything else goes on up. */
export const renderLearnError: ErrorHandler<LearnEnv> = (err, c) => {
  if (err instanceof PageRedirect) return c.redirect(err.location, err.status);
  // Unset when the refusal came from finding the learner.
  const learner: Learner | undefined = c.get('learner');
  const refusal =
    err instanceof PageRefusal
      ? err
      : err instanceof ProblemError && err.status < 500
        ? problemRefusal(err, learner)
        : undefined;
  if (!refusal) throw err;
  const links =
    refusal.links.length > 0
      ? refusal.links
      : [
          learner
            ? { href: learnPath(learner.school), label: 'Go to My courses' }
            : { href: '/account', label: 'Go to your account' },
        ];
  for (const [name, value] of Object.entries(refusal.headers)) c.header(name, value);
  return learnMessage(c, refusal.status, refusal.title, refusal.detail, links);
};
