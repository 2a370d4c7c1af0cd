/**
 * "Enrol" on a free course's page: the domain decides (domain/learning/self-enrolment.ts), this
 * puts its reason into words. Enrolled, the student goes to the learning area.
 */
import type { SelfEnrolRefusal } from '../../domain/learning/self-enrolment.ts';
import { enrolSelf } from '../../domain/learning/self-enrolment.ts';
import type { AppContext } from '../../http/context.ts';
import { PageRedirect, PageRefusal } from '../shared/refusal.ts';
import type { SiteContext } from './context.ts';
import { courseOfPath, learnHref } from './course-pages.ts';
import { type SiteRequest, signInHref, signUpHref } from './kit.ts';

/** A refused self-enrolment in words, with the way on. */
function enrolRefusal(req: SiteRequest, reason: SelfEnrolRefusal, here: string, email: string): PageRefusal {
  const name = req.site.name;
  switch (reason) {
    case 'not_free':
      return new PageRefusal(
        409,
        'Sold by the school',
        `This course is sold by ${name}: buy it on the course page.`,
        {
          links: [{ href: here, label: 'Back to the course' }],
        },
      );
    case 'signup_closed':
      return new PageRefusal(
        403,
        'Sign-up is closed',
        `${name} is not taking new sign-ups on its site at the moment. To join, ask ${name} for an invitation.`,
        { links: [{ href: here, label: 'Back to the course' }] },
      );
    case 'email_unconfirmed':
      return new PageRefusal(
        403,
        'Confirm your email first',
        `The email address of your account, ${email}, is not confirmed yet. Confirm it by resetting your password (the link reaches only the owner of the mailbox), then enrol again.`,
        { links: [{ href: '/password-reset', label: 'Forgot password?' }] },
      );
  }
}

/** `POST …/courses/:slug/enroll`: enrols the signed-in visitor in a free course. */
export async function enrolInCourse(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const course = await courseOfPath(ctx, c);
  const here = `${req.base}/courses/${course.course.slug}`;
  if (!req.viewer) throw new PageRedirect(req.signUp.ok ? signUpHref(req, here) : signInHref(here), 303);
  const decision = await enrolSelf(ctx.db, req.site, req.viewer.user, {
    courseId: course.courseId,
    free: course.course.free,
  });
  if (!decision.ok) throw enrolRefusal(req, decision.reason, here, req.viewer.user.email);
  return c.redirect(learnHref(req), 303);
}
