/**
 * A school's public site at `/schools/<subdomain>/…` (product.md §10): its home page's blocks in
 * its theme, the catalogue of published courses, course pages with their outline, free previews
 * and the way in (enrol in a free course, the school's own checkout for a paid one), upcoming
 * public events, published posts and pages. Everything public is read through
 * domain/catalog/public-catalogue.ts; drafts, archived courses, members-only events and another
 * school's things are the same 404 page as an address that never existed.
 */
import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import {
  type PublicOffer,
  publicCourseOffer,
  publicCoursesByIds,
  publicLecturePreview,
  publicPage,
  publishedPost,
  publishedPosts,
  searchPublicCourses,
  upcomingPublicEvents,
} from '../../domain/catalog/public-catalogue.ts';
import type { SitePage } from '../../domain/community/pages.ts';
import { enroll, findEnrollmentOf } from '../../domain/learning/enrollments.ts';
import type { QuizShape } from '../../domain/learning/lecture-access.ts';
import { findMembership } from '../../domain/school/memberships.ts';
import { standingRoles } from '../../domain/school/standing.ts';
import { readStoredFile } from '../../domain/school/storage.ts';
import { trustedAt } from '../../domain/school/users.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { CSRF_FIELD, verifyCsrf } from '../../http/sessions.ts';
import { isFormRequest } from '../../oauth/form-body.ts';
import type { Html } from '../layout.ts';
import { notice } from '../shared/page-kit.ts';
import { dateTimeRange, duration, longDay } from '../shared/school-format.ts';
import { blockFileIds, courseCards, httpUrl, prose, renderBlocks } from './blocks.ts';
import { lectureKind, price as priceOf } from './format.ts';
import { createSiteFormsApp } from './forms.ts';
import {
  found,
  openSite,
  type SiteRequest,
  sendSitePage,
  signInHref,
  signUpHref,
  siteNotFound,
} from './kit.ts';
import { createSiteSignupApp, signupClosedPage } from './signup.ts';

/** A path parameter ('' when absent). */
const param = (c: Context, name: string): string => c.req.param(name) ?? '';

/** Where a student continues a course: the learning area. */
function learnHref(req: SiteRequest, slug?: string): string {
  return slug ? `${req.base}/learn/courses/${slug}` : `${req.base}/learn`;
}

/**
 * Whether the signed-in visitor may enrol from the site: anyone while the school takes sign-ups
 * (enrolling makes them a student), only its members while sign-up is closed.
 */
async function mayEnrol(ctx: AppContext, req: SiteRequest): Promise<boolean> {
  if (!req.viewer) return false;
  if (req.site.signupOpen) return true;
  const membership = await findMembership(ctx.db, req.site.id, req.viewer.user.id);
  return standingRoles(membership).length > 0;
}

/**
 * A free-preview quiz: its questions and choices, never which choice is right (the body's `[x]`
 * marks), nor anything else the body says.
 */
function quizPreview(quiz: QuizShape | null): Html | undefined {
  const questions = quiz?.questions ?? [];
  if (questions.length === 0) return undefined;
  return html`<ol class="quiz">${questions.map(
    (q) => html`<li><p>${q.prompt}</p><ul>${q.choices.map((choice) => html`<li>${choice}</li>`)}</ul></li>`,
  )}</ol>
<p class="muted">Enrol to answer this quiz.</p>`;
}

async function pageBody(ctx: AppContext, req: SiteRequest, page: SitePage): Promise<Html> {
  // Course lists name their courses (or, in the older shape, all published ones): read them first.
  const lists = new Map<object, Awaited<ReturnType<typeof publicCoursesByIds>>>();
  for (const b of page.blocks.filter((b) => b.type === 'course_list')) {
    const ids = Array.isArray(b.course_ids) ? b.course_ids.filter((id) => typeof id === 'string') : null;
    lists.set(
      b,
      ids
        ? await publicCoursesByIds(ctx.db, req.site.id, ids)
        : (await searchPublicCourses(ctx.db, req.site.id, undefined, { limit: 12 })).courses,
    );
  }
  return renderBlocks(req, page.blocks, {
    courses: (b) => lists.get(b) ?? [],
    imageHref: (fileId) => `${req.base}/pages/${page.slug}/images/${fileId}`,
  });
}

function offer(req: SiteRequest, course: PublicOffer, enrolled: boolean, mayEnrol: boolean): Html {
  const { site, base, viewer } = req;
  const here = `${base}/courses/${course.course.slug}`;
  const price = priceOf(site, course.course.priceAmount, course.course.currency);
  let action: Html;
  if (enrolled) {
    action = html`<p>You are enrolled.</p><a class="button" href="${learnHref(req, course.course.slug)}">Continue</a>`;
  } else if (!course.course.free) {
    const checkout = httpUrl(course.checkoutUrl);
    action = checkout
      ? html`<a class="button" href="${checkout}" rel="noopener noreferrer external">Buy for ${price}</a>
<p class="muted">You pay on ${new URL(checkout).host}; ${site.name} gives you access when the payment is done.</p>`
      : html`<p><strong>Not on sale yet.</strong></p>`;
  } else if (viewer && !mayEnrol) {
    action = html`<p><strong>Sign-up is closed.</strong></p>
<p>${site.name} takes new students by invitation only at the moment. To join, ask ${site.name} for an invitation.</p>`;
  } else if (viewer) {
    action = html`<form method="post" action="${here}/enroll"><input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrf}"><button class="primary" type="submit">Enrol</button></form>`;
  } else {
    action = site.signupOpen
      ? html`<a class="button" href="${signUpHref(req, here)}">Sign up to enrol</a>
<p>Already have an account? <a href="${signInHref(here)}">Sign in to enrol</a></p>`
      : html`<a class="button" href="${signInHref(here)}">Sign in to enrol</a>`;
  }
  return html`<div class="offer"><p class="price">${price}</p>${action}</div>`;
}

function outline(req: SiteRequest, course: PublicOffer): Html {
  return html`<h2>Course outline</h2>
<p class="muted">${course.lectureCount} lecture${course.lectureCount === 1 ? '' : 's'}${course.totalDurationSeconds > 0 ? `, ${duration(course.totalDurationSeconds)} in all` : ''}</p>
${course.sections.map(
  (s) => html`<h3>${s.title}</h3>
<ol class="lectures">${s.lectures.map(
    (l) =>
      html`<li>${
        l.freePreview
          ? html`<a href="${req.base}/courses/${course.course.slug}/preview/${l.id}">${l.title}</a> <span class="badge">Free preview</span>`
          : l.title
      } <span class="muted">· ${lectureKind(l.type)}${l.durationSeconds > 0 ? ` · ${duration(l.durationSeconds)}` : ''}</span></li>`,
  )}</ol>`,
)}`;
}

/** The school's site, mounted by one line in pages.ts. */
export function createSchoolSiteApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.route('/', createSiteSignupApp(ctx));
  app.route('/', createSiteFormsApp(ctx));

  // Each handler opens the site (or answers the unknown school's 404) first.
  const site =
    (handler: (c: Context, req: SiteRequest) => Promise<Response>) =>
    async (c: Context): Promise<Response> => {
      const req = await openSite(ctx, c);
      return req instanceof Response ? req : handler(c, req);
    };

  app.get(
    '/schools/:school/',
    site(async (c, req) => {
      const home = await found(publicPage(ctx.db, req.site.id, 'home'));
      const body = home
        ? html`<h1>${home.title}</h1>${await pageBody(ctx, req, home)}`
        : html`<h1>${req.site.name}</h1>
<h2>Courses</h2>${courseCards(req, (await searchPublicCourses(ctx.db, req.site.id, undefined, { limit: 12 })).courses)}`;
      return sendSitePage(c, req, 200, 'Home', body, { current: 'home' });
    }),
  );
  app.get('/schools/:school', (c) =>
    c.redirect(`/schools/${encodeURIComponent(c.req.param('school'))}/`, 301),
  );

  app.get(
    '/schools/:school/courses',
    site(async (c, req) => {
      const { courses } = await searchPublicCourses(ctx.db, req.site.id, undefined, { limit: 100 });
      const body = html`<h1>Courses</h1>${courseCards(req, courses, 'h2')}`;
      return sendSitePage(c, req, 200, 'Courses', body, { current: 'courses' });
    }),
  );

  app.get(
    '/schools/:school/courses/:slug',
    site(async (c, req) => {
      const course = await found(publicCourseOffer(ctx.db, req.site.id, param(c, 'slug')));
      if (!course) return siteNotFound(c, req, 'This course does not exist or is not open to the public.');
      const enrolled =
        req.viewer !== undefined &&
        (await findEnrollmentOf(ctx.db, req.site.id, req.viewer.user.id, course.courseId)) !== undefined;
      const open = !enrolled && course.course.free && (await mayEnrol(ctx, req));
      const flash = c.req.query('done') === 'enrolled' ? notice('success', 'You are enrolled.') : '';
      const body = html`<h1>${course.course.title}</h1>
${flash}
${course.course.lecturers.length > 0 ? html`<p class="muted">Taught by ${course.course.lecturers.join(', ')}</p>` : ''}
${offer(req, course, enrolled, open)}
${course.course.description ? prose(course.course.description) : ''}
${outline(req, course)}`;
      return sendSitePage(c, req, 200, course.course.title, body, { current: 'courses' });
    }),
  );

  app.get(
    '/schools/:school/courses/:slug/preview/:lectureId',
    site(async (c, req) => {
      const preview = await found(
        publicLecturePreview(ctx.db, req.site.id, param(c, 'slug'), param(c, 'lectureId')),
      );
      if (!preview) return siteNotFound(c, req, 'This lecture is not a free preview.');
      const { course, lecture } = preview;
      const video = httpUrl(lecture.videoUrl);
      const material =
        lecture.type === 'quiz' ? quizPreview(lecture.quiz) : lecture.body ? prose(lecture.body) : undefined;
      const body = html`<p><a href="${req.base}/courses/${course.slug}">← ${course.title}</a></p>
<h1>${lecture.title}</h1>
<p class="muted"><span class="badge">Free preview</span> ${lectureKind(lecture.type)}${lecture.durationSeconds > 0 ? ` · ${duration(lecture.durationSeconds)}` : ''}</p>
${video ? html`<p><a class="button" href="${video}" rel="noopener noreferrer">Watch the video</a></p>` : ''}
${material ?? ''}
${!video && !material ? html`<p>This lecture’s material is for enrolled students.</p>` : ''}
<p><a href="${req.base}/courses/${course.slug}">See the whole course: ${course.title}</a></p>`;
      return sendSitePage(c, req, 200, `${lecture.title} (free preview)`, body, { current: 'courses' });
    }),
  );

  app.post(
    '/schools/:school/courses/:slug/enroll',
    site(async (c, req) => {
      const here = `${req.base}/courses/${param(c, 'slug')}`;
      const course = await found(publicCourseOffer(ctx.db, req.site.id, param(c, 'slug')));
      if (!course) return siteNotFound(c, req, 'This course does not exist or is not open to the public.');
      if (!req.viewer) return c.redirect(signUpHref(req, here), 303);
      const form = isFormRequest(c) ? new URLSearchParams(await c.req.text()) : new URLSearchParams();
      if (!verifyCsrf(ctx, c, form.get(CSRF_FIELD) ?? undefined, req.viewer.session)) {
        const body = html`<h1>Form expired</h1>
${notice('error', 'This form has expired or did not come from this site. Go back, reload the page and try again.')}
<p><a href="${here}">Back to ${course.course.title}</a></p>`;
        return sendSitePage(c, req, 403, 'Form expired', body);
      }
      if (!course.course.free) {
        const body = html`<h1>${course.course.title}</h1>
${notice('error', `This course is sold by ${req.site.name}: buy it on the course page.`)}
<p><a href="${here}">Back to ${course.course.title}</a></p>`;
        return sendSitePage(c, req, 409, course.course.title, body);
      }
      // Enrolling makes a student of the school: while its sign-up is closed, only its members may.
      if (!(await mayEnrol(ctx, req))) return signupClosedPage(c, req, here);
      // An account whose email is unproven is trusted only at the school that made it.
      if (!trustedAt(req.viewer.user, req.site.id)) {
        const body = html`<h1>Confirm your email first</h1>
${notice('warning', html`The email address of your account, <strong>${req.viewer.user.email}</strong>, is not confirmed yet.`)}
<p>Confirm it by resetting your password (<a href="/password-reset">Forgot password?</a>): the link reaches only the owner of the mailbox. Then enrol again.</p>`;
        return sendSitePage(c, req, 403, 'Confirm your email first', body);
      }
      try {
        await enroll(ctx.db, req.site.id, { userId: req.viewer.user.id, courseId: course.courseId });
      } catch (err) {
        if (!(err instanceof ProblemError && err.code === 'already_enrolled')) throw err;
      }
      return c.redirect(learnHref(req), 303);
    }),
  );

  app.get(
    '/schools/:school/events',
    site(async (c, req) => {
      const { events } = await upcomingPublicEvents(ctx.db, req.site.id, { limit: 100 });
      const body = html`<h1>Upcoming events</h1>
${
  events.length === 0
    ? html`<p>No upcoming events.</p>`
    : html`<ul class="items">${events.map(
        (e) => html`<li><h2>${e.title}</h2>
<p><time datetime="${e.startsAt}">${dateTimeRange(req.site, e.startsAt, e.endsAt)}</time></p>
<p>${e.online ? 'Online' : (e.location ?? '')}${e.spotsLeft !== null ? html` · ${e.spotsLeft === 0 ? 'Fully booked' : `${e.spotsLeft} of ${e.capacity} places left`}` : ''}</p>
${e.description ? prose(e.description) : ''}</li>`,
      )}</ul>`
}`;
      return sendSitePage(c, req, 200, 'Events', body, { current: 'events' });
    }),
  );

  app.get(
    '/schools/:school/posts',
    site(async (c, req) => {
      const { posts } = await publishedPosts(ctx.db, req.site.id, { limit: 100 });
      const body = html`<h1>Posts</h1>
${
  posts.length === 0
    ? html`<p>No posts yet.</p>`
    : html`<ul class="items">${[...posts].reverse().map(
        (p) => html`<li><h2><a href="${req.base}/posts/${p.slug}">${p.title}</a></h2>
${p.publishedAt ? html`<p class="muted"><time datetime="${p.publishedAt}">${longDay(req.site, p.publishedAt)}</time></p>` : ''}</li>`,
      )}</ul>`
}`;
      return sendSitePage(c, req, 200, 'Posts', body, { current: 'posts' });
    }),
  );

  app.get(
    '/schools/:school/posts/:slug',
    site(async (c, req) => {
      const post = await found(publishedPost(ctx.db, req.site.id, param(c, 'slug')));
      if (!post) return siteNotFound(c, req, 'This post does not exist or is not published.');
      const body = html`<p><a href="${req.base}/posts">← All posts</a></p>
<h1>${post.title}</h1>
${post.publishedAt ? html`<p class="muted"><time datetime="${post.publishedAt}">${longDay(req.site, post.publishedAt)}</time></p>` : ''}
${prose(post.body)}`;
      return sendSitePage(c, req, 200, post.title, body, { current: 'posts' });
    }),
  );

  app.get(
    '/schools/:school/pages/:slug',
    site(async (c, req) => {
      const page = await found(publicPage(ctx.db, req.site.id, param(c, 'slug')));
      if (!page) return siteNotFound(c, req, 'This page does not exist or is not published.');
      const body = html`<h1>${page.title}</h1>${await pageBody(ctx, req, page)}`;
      return sendSitePage(c, req, 200, page.title, body);
    }),
  );

  // Images: the school's logo, and the files a published page's blocks show; nothing else.
  const image = async (c: Context, req: SiteRequest, fileId: string | null): Promise<Response> => {
    const file = fileId
      ? await found(readStoredFile(ctx.db, ctx.config.filesDir, req.site.id, fileId))
      : undefined;
    // SVG can carry script: only raster images are served.
    if (!file?.file.contentType.startsWith('image/') || file.file.contentType.includes('svg')) {
      return siteNotFound(c, req, 'There is no image here.');
    }
    return c.body(file.bytes, 200, {
      'Content-Type': file.file.contentType,
      'Cache-Control': 'public, max-age=300',
      'Content-Security-Policy': "default-src 'none'",
    });
  };
  app.get(
    '/schools/:school/logo',
    site((c, req) => image(c, req, req.site.appearance.logoFileId)),
  );
  app.get(
    '/schools/:school/pages/:slug/images/:fileId',
    site(async (c, req) => {
      const page = await found(publicPage(ctx.db, req.site.id, param(c, 'slug')));
      const fileId = param(c, 'fileId');
      return image(c, req, page && blockFileIds(page.blocks).includes(fileId) ? fileId : null);
    }),
  );

  return app;
}
