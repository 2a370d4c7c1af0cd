/**
 * The school's home page, its catalogue, a course's page (outline, price and the way in) and a
 * free preview. Everything is read through domain/catalog/public-catalogue.ts; who may enrol is
 * the domain's rule (domain/learning/self-enrolment.ts), put into words here.
 */
import { html } from 'hono/html';
import {
  type PublicOffer,
  publicCourseOffer,
  publicCoursesByIds,
  publicLecturePreview,
  searchPublicCourses,
} from '../../domain/catalog/public-catalogue.ts';
import { publicPage } from '../../domain/catalog/public-site-content.ts';
import type { SitePage } from '../../domain/community/pages.ts';
import { findEnrollmentOf } from '../../domain/learning/enrollments.ts';
import type { QuizShape } from '../../domain/learning/lecture-access.ts';
import { type SelfEnrolDecision, selfEnrolment } from '../../domain/learning/self-enrolment.ts';
import type { AppContext } from '../../http/context.ts';
import { CSRF_FIELD } from '../../http/sessions.ts';
import type { Html } from '../layout.ts';
import { notice } from '../shared/page-kit.ts';
import { duration, price as priceOf } from '../shared/school-format.ts';
import { courseCards, httpUrl, prose, renderBlocks } from './blocks.ts';
import type { SiteContext } from './context.ts';
import { lectureKind } from './format.ts';
import { found, notFound, type SiteRequest, sendSitePage, signInHref, signUpHref } from './kit.ts';

/** Where a student continues a course: the learning area. */
export function learnHref(req: SiteRequest, slug?: string): string {
  return slug ? `${req.base}/learn/courses/${slug}` : `${req.base}/learn`;
}

/** The public course of the path's `:slug`; a draft, archived or unknown one is a 404. */
export async function courseOfPath(ctx: AppContext, c: SiteContext): Promise<PublicOffer> {
  const course = await found(publicCourseOffer(ctx.db, c.get('site').site.id, c.req.param('slug') ?? ''));
  if (!course) throw notFound('This course does not exist or is not open to the public.');
  return course;
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

/** A site page's blocks, with the courses its course lists name read first. */
export async function pageBody(ctx: AppContext, req: SiteRequest, page: SitePage): Promise<Html> {
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

/** The way into a course for this visitor: continue, buy, enrol, sign up or in, or why not. */
function wayIn(req: SiteRequest, course: PublicOffer, enrolled: boolean, decision?: SelfEnrolDecision): Html {
  const { site, viewer } = req;
  const here = `${req.base}/courses/${course.course.slug}`;
  if (enrolled) {
    return html`<p>You are enrolled.</p><a class="button" href="${learnHref(req, course.course.slug)}">Continue</a>`;
  }
  if (!course.course.free) {
    const checkout = httpUrl(course.checkoutUrl);
    return checkout
      ? html`<a class="button" href="${checkout}" rel="noopener noreferrer external">Buy for ${priceOf(site, course.course.priceAmount, course.course.currency)}</a>
<p class="muted">You pay on ${new URL(checkout).host}; ${site.name} gives you access when the payment is done.</p>`
      : html`<p><strong>Not on sale yet.</strong></p>`;
  }
  if (viewer && decision?.ok === false && decision.reason === 'signup_closed') {
    return html`<p><strong>Sign-up is closed.</strong></p>
<p>${site.name} takes new students by invitation only at the moment. To join, ask ${site.name} for an invitation.</p>`;
  }
  if (viewer) {
    return html`<form method="post" action="${here}/enroll"><input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrf}"><button class="primary" type="submit">Enrol</button></form>`;
  }
  return req.signUp.ok
    ? html`<a class="button" href="${signUpHref(req, here)}">Sign up to enrol</a>
<p>Already have an account? <a href="${signInHref(here)}">Sign in to enrol</a></p>`
    : html`<a class="button" href="${signInHref(here)}">Sign in to enrol</a>`;
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

/** `GET …/`: the home page's blocks, or the school's courses when it has none. */
export async function showHome(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const home = await found(publicPage(ctx.db, req.site.id, 'home'));
  const body = home
    ? html`<h1>${home.title}</h1>${await pageBody(ctx, req, home)}`
    : html`<h1>${req.site.name}</h1>
<h2>Courses</h2>${courseCards(req, (await searchPublicCourses(ctx.db, req.site.id, undefined, { limit: 12 })).courses)}`;
  return sendSitePage(c, req, 200, 'Home', body, { current: 'home' });
}

/** `GET …/courses`: the catalogue of published courses. */
export async function showCatalogue(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const { courses } = await searchPublicCourses(ctx.db, req.site.id, undefined, { limit: 100 });
  return sendSitePage(c, req, 200, 'Courses', html`<h1>Courses</h1>${courseCards(req, courses, 'h2')}`, {
    current: 'courses',
  });
}

/** `GET …/courses/:slug`: the course's page. */
export async function showCourse(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const course = await courseOfPath(ctx, c);
  const { viewer } = req;
  const enrolled =
    viewer !== undefined &&
    (await findEnrollmentOf(ctx.db, req.site.id, viewer.user.id, course.courseId)) !== undefined;
  const decision =
    viewer && !enrolled && course.course.free
      ? await selfEnrolment(ctx.db, req.site, viewer.user, { courseId: course.courseId, free: true })
      : undefined;
  const flash = c.req.query('done') === 'enrolled' ? notice('success', 'You are enrolled.') : '';
  const body = html`<h1>${course.course.title}</h1>
${flash}
${course.course.lecturers.length > 0 ? html`<p class="muted">Taught by ${course.course.lecturers.join(', ')}</p>` : ''}
<div class="offer"><p class="price">${priceOf(req.site, course.course.priceAmount, course.course.currency)}</p>${wayIn(req, course, enrolled, decision)}</div>
${course.course.description ? prose(course.course.description) : ''}
${outline(req, course)}`;
  return sendSitePage(c, req, 200, course.course.title, body, { current: 'courses' });
}

/** `GET …/courses/:slug/preview/:lectureId`: a free-preview lecture, signed in or not. */
export async function showPreview(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const preview = await found(
    publicLecturePreview(ctx.db, req.site.id, c.req.param('slug') ?? '', c.req.param('lectureId') ?? ''),
  );
  if (!preview) throw notFound('This lecture is not a free preview.');
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
}
