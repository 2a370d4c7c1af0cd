/**
 * A school's learning area (product.md §10), `/schools/<subdomain>/learn/…`: My courses, a
 * course's overview and its player, and the member's orders, events and subscription. Progress
 * is recorded only through recordMemberLectureProgress, the rule the Account API and the
 * member tools use.
 */
import { readFileSync } from 'node:fs';
import { type Context, Hono } from 'hono';
import type { Lecture } from '../../domain/catalog/curriculum-rows.ts';
import { listEvents } from '../../domain/community/events.ts';
import { gradeQuiz } from '../../domain/learning/quizzes.ts';
import {
  cancelMemberEventRegistration,
  listMemberEventRegistrations,
  listMemberOrders,
  listMemberSubscriptions,
  recordMemberLectureProgress,
  registerMemberForEvent,
} from '../../domain/member/member-account.ts';
import { getStoredFile, type StoredFile } from '../../domain/school/storage.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { isoNow } from '../../store/time.ts';
import { sendPage } from '../layout.ts';
import { readForm, sendAreaPage } from '../shared/page-kit.ts';
import {
  allPages,
  type CourseAccess,
  courseAccess,
  type Learner,
  learnerEnrollments,
  learnerOfRequest,
  learnMessage,
  learnPath,
  lecturePath,
  lecturesOf,
  notEnrolledPage,
  notFound,
  plausibleId,
} from './access.ts';
import { createLectureFilesApp } from './files.ts';
import { PLAYER_SCRIPT_PATH, playerPage } from './player-view.ts';
import { courseOverviewPage, eventsPage, myCoursesPage, ordersPage, subscriptionPage } from './views.ts';

const PLAYER_SCRIPT = readFileSync(new URL('./player.js', import.meta.url), 'utf8');

/** A page of the area: `handler` runs only for a signed-in member of the school in the path. */
function learnerPage(
  ctx: AppContext,
  handler: (c: Context<AppEnv>, learner: Learner) => Promise<Response>,
): (c: Context<AppEnv>) => Promise<Response> {
  return async (c) => {
    const learner = await learnerOfRequest(ctx, c);
    return learner instanceof Response ? learner : handler(c, learner);
  };
}

/** The lecture of the path in a course the learner may open, or the page that says why not. */
async function lectureOfRequest(
  ctx: AppContext,
  c: Context<AppEnv>,
  learner: Learner,
): Promise<{ access: Exclude<CourseAccess, { kind: 'not-enrolled' }>; lecture: Lecture } | Response> {
  const access = await courseAccess(ctx, learner, c.req.param('slug'));
  if (!access) return notFound(c, learner.school);
  if (access.kind === 'not-enrolled') return notEnrolledPage(c, learner, access.course);
  const id = c.req.param('lectureId');
  const lecture = plausibleId(id) ? lecturesOf(access.sections).find((l) => l.id === id) : undefined;
  if (!lecture) return notFound(c, learner.school);
  return { access, lecture };
}

/** The stored file of a lecture, when it has one that still exists. */
async function fileOf(ctx: AppContext, learner: Learner, lecture: Lecture): Promise<StoredFile | undefined> {
  if (!lecture.fileId) return undefined;
  try {
    return await getStoredFile(ctx.db, learner.school.id, lecture.fileId);
  } catch (err) {
    if (err instanceof ProblemError && err.status === 404) return undefined;
    throw err;
  }
}

/** Quiz answers of a form or query: `q0`, `q1`, … each a choice index (anything else: unanswered). */
function answersOf(params: { get(name: string): string | null | undefined }): Array<number | null> {
  const out: Array<number | null> = [];
  for (let i = 0; i < 100; i++) {
    const v = params.get(`q${i}`);
    out.push(v && /^\d{1,3}$/.test(v) ? Number(v) : null);
  }
  return out;
}

/** A refusal of the progress rule as a page (or, for the player script, just its status). */
function progressRefused(c: Context, learner: Learner, err: unknown): Promise<Response> {
  if (!(err instanceof ProblemError)) throw err;
  const back = [{ href: learnPath(learner.school), label: 'Go to My courses' }];
  switch (err.code) {
    case 'access_expired':
      return learnMessage(
        c,
        403,
        'Your access has ended',
        'Your access to this course has ended; contact the school to renew it.',
        back,
      );
    case 'not_enrolled':
      return learnMessage(
        c,
        403,
        "You're not enrolled in this course",
        'Only students of this course can record progress in it.',
        back,
      );
    case 'lecture_not_found':
    case 'not_found':
      return notFound(c, learner.school);
    case 'validation_failed':
      return learnMessage(
        c,
        400,
        'Position not valid',
        'The position must be a whole number of seconds from 0 to 1,000,000.',
        back,
      );
    default:
      throw err;
  }
}

/** The learning area's routes (and the player script and lecture files beside them). */
export function createLearnPagesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const base = '/schools/:subdomain/learn';

  /**
   * Completes a lecture for its student through the one progress rule (Mark complete, a passed
   * quiz); the place in a video stays where it was saved. The refusal page, or undefined.
   */
  async function complete(
    c: Context,
    learner: Learner,
    access: Extract<CourseAccess, { kind: 'enrolled' }>,
    lectureId: string,
  ): Promise<Response | undefined> {
    try {
      await recordMemberLectureProgress(ctx.db, learner.scope, {
        lectureId,
        positionSeconds: access.progress.get(lectureId)?.positionSeconds ?? 0,
        completed: true,
      });
      return undefined;
    } catch (err) {
      return progressRefused(c, learner, err);
    }
  }

  app.get(PLAYER_SCRIPT_PATH, (c) =>
    c.body(PLAYER_SCRIPT, 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
    }),
  );

  app.route('/', createLectureFilesApp(ctx));

  app.get(
    base,
    learnerPage(ctx, async (c, learner) => {
      const enrollments = await learnerEnrollments(ctx, learner);
      return sendAreaPage(c, 200, `My courses · ${learner.school.name}`, myCoursesPage(learner, enrollments));
    }),
  );

  app.get(
    `${base}/courses/:slug`,
    learnerPage(ctx, async (c, learner) => {
      const access = await courseAccess(ctx, learner, c.req.param('slug'));
      if (!access) return notFound(c, learner.school);
      if (access.kind === 'not-enrolled') return notEnrolledPage(c, learner, access.course);
      const enrollment = access.kind === 'enrolled' ? access.enrollment : undefined;
      const progress = access.kind === 'enrolled' ? access.progress : new Map();
      return sendAreaPage(
        c,
        200,
        access.course.title,
        courseOverviewPage(learner, access.course, access.sections, enrollment, progress),
      );
    }),
  );

  // "Start": the first lecture of the course (Continue when nothing was watched yet).
  app.get(
    `${base}/courses/:slug/start`,
    learnerPage(ctx, async (c, learner) => {
      const access = await courseAccess(ctx, learner, c.req.param('slug'));
      if (!access) return notFound(c, learner.school);
      if (access.kind === 'not-enrolled') return notEnrolledPage(c, learner, access.course);
      const first = lecturesOf(access.sections)[0];
      if (!first) return c.redirect(learnPath(learner.school, `/courses/${access.course.slug}`), 303);
      return c.redirect(lecturePath(learner.school, access.course.slug, first.id), 303);
    }),
  );

  app.get(
    `${base}/courses/:slug/lectures/:lectureId`,
    learnerPage(ctx, async (c, learner) => {
      const found = await lectureOfRequest(ctx, c, learner);
      if (found instanceof Response) return found;
      const { access, lecture } = found;
      const enrollment = access.kind === 'enrolled' ? access.enrollment : undefined;
      const query = new URL(c.req.url).searchParams;
      const grade =
        lecture.type === 'quiz' && query.has('checked')
          ? gradeQuiz(lecture.body, answersOf(query))
          : undefined;
      const page = playerPage({
        learner,
        course: access.course,
        sections: access.sections,
        lecture,
        enrollment,
        progress: access.kind === 'enrolled' ? access.progress : new Map(),
        file: await fileOf(ctx, learner, lecture),
        grade,
        done: c.req.query('done'),
      });
      const expired = enrollment !== undefined && !enrollment.active && !lecture.isFreePreview;
      return sendPage(c, expired ? 403 : 200, `${lecture.title} · ${access.course.title}`, page.body, {
        formAction: ["'self'"],
        wide: true,
        directives: page.directives,
      });
    }),
  );

  app.post(
    `${base}/courses/:slug/lectures/:lectureId/complete`,
    learnerPage(ctx, async (c, learner) => {
      const form = await readForm(ctx, c, learner.viewer);
      if (form instanceof Response) return form;
      const found = await lectureOfRequest(ctx, c, learner);
      if (found instanceof Response) return found;
      const { access, lecture } = found;
      if (access.kind !== 'enrolled') {
        return learnMessage(
          c,
          403,
          'No progress to record',
          'Only students of this course record progress in it.',
          [
            {
              href: lecturePath(learner.school, access.course.slug, lecture.id),
              label: 'Back to the lecture',
            },
          ],
        );
      }
      const refused = await complete(c, learner, access, lecture.id);
      if (refused) return refused;
      const all = lecturesOf(access.sections);
      const next = all[all.findIndex((l) => l.id === lecture.id) + 1];
      return next
        ? c.redirect(`${lecturePath(learner.school, access.course.slug, next.id)}?done=next`, 303)
        : c.redirect(`${lecturePath(learner.school, access.course.slug, lecture.id)}?done=completed`, 303);
    }),
  );

  app.post(
    `${base}/courses/:slug/lectures/:lectureId/quiz`,
    learnerPage(ctx, async (c, learner) => {
      const form = await readForm(ctx, c, learner.viewer);
      if (form instanceof Response) return form;
      const found = await lectureOfRequest(ctx, c, learner);
      if (found instanceof Response) return found;
      const { access, lecture } = found;
      if (lecture.type !== 'quiz') return notFound(c, learner.school);
      const answers = answersOf(form);
      const grade = gradeQuiz(lecture.body, answers);
      if (grade.passed && access.kind === 'enrolled') {
        const refused = await complete(c, learner, access, lecture.id);
        if (refused) return refused;
      }
      // The answers go into the address of the page that shows the grade (a GET, so a refresh
      // only grades again); they are choices, not secrets.
      const query = new URLSearchParams({ checked: '1' });
      grade.answers.forEach((a, i) => {
        if (a.chosen !== null) query.set(`q${i}`, String(a.chosen));
      });
      return c.redirect(
        `${lecturePath(learner.school, access.course.slug, lecture.id)}?${query}#quiz-result`,
        303,
      );
    }),
  );

  // Where the player script saves the video position: 204, or the refusal's status and page.
  app.post(
    `${base}/courses/:slug/lectures/:lectureId/position`,
    learnerPage(ctx, async (c, learner) => {
      const form = await readForm(ctx, c, learner.viewer);
      if (form instanceof Response) return form;
      const id = c.req.param('lectureId');
      if (!plausibleId(id)) return notFound(c, learner.school);
      const raw = form.get('position') ?? '';
      if (!/^\d{1,7}$/.test(raw)) {
        return learnMessage(
          c,
          400,
          'Position not valid',
          'The position must be a whole number of seconds from 0 to 1,000,000.',
          [{ href: learnPath(learner.school), label: 'Go to My courses' }],
        );
      }
      try {
        await recordMemberLectureProgress(ctx.db, learner.scope, {
          lectureId: id,
          positionSeconds: Number(raw),
        });
      } catch (err) {
        return progressRefused(c, learner, err);
      }
      return c.body(null, 204);
    }),
  );

  app.get(
    `${base}/orders`,
    learnerPage(ctx, async (c, learner) => {
      const orders = await allPages((page) => listMemberOrders(ctx.db, learner.scope, page));
      return sendAreaPage(c, 200, `Orders · ${learner.school.name}`, ordersPage(learner, orders));
    }),
  );

  app.get(
    `${base}/events`,
    learnerPage(ctx, async (c, learner) => {
      // A member sees the school's upcoming scheduled events, members-only ones included.
      const events = await allPages((page) =>
        listEvents(ctx.db, learner.school.id, { endsAfter: isoNow(), status: 'scheduled' }, page),
      );
      const registrations = await allPages((page) =>
        listMemberEventRegistrations(ctx.db, learner.scope, page),
      );
      const error = c.req.query('error');
      return sendAreaPage(
        c,
        200,
        `Events · ${learner.school.name}`,
        eventsPage(learner, events, new Map(registrations.map((r) => [r.eventId, r])), {
          done: c.req.query('done'),
          error: error && Object.hasOwn(EVENT_ERRORS, error) ? EVENT_ERRORS[error] : undefined,
        }),
      );
    }),
  );

  for (const action of ['register', 'cancel'] as const) {
    app.post(
      `${base}/events/:eventId/${action}`,
      learnerPage(ctx, async (c, learner) => {
        const form = await readForm(ctx, c, learner.viewer);
        if (form instanceof Response) return form;
        const id = c.req.param('eventId');
        if (!plausibleId(id)) return notFound(c, learner.school);
        const events = learnPath(learner.school, '/events');
        try {
          if (action === 'register') await registerMemberForEvent(ctx.db, learner.scope, id);
          else await cancelMemberEventRegistration(ctx.db, learner.scope, id);
        } catch (err) {
          if (!(err instanceof ProblemError)) throw err;
          if (err.status === 404) return notFound(c, learner.school);
          if (Object.hasOwn(EVENT_ERRORS, err.code)) return c.redirect(`${events}?error=${err.code}`, 303);
          throw err;
        }
        return c.redirect(`${events}?done=${action === 'register' ? 'registered' : 'canceled'}`, 303);
      }),
    );
  }

  app.get(
    `${base}/subscription`,
    learnerPage(ctx, async (c, learner) => {
      const subscriptions = await allPages((page) => listMemberSubscriptions(ctx.db, learner.scope, page));
      return sendAreaPage(
        c,
        200,
        `Subscription · ${learner.school.name}`,
        subscriptionPage(learner, subscriptions),
      );
    }),
  );

  // Anything else under the area is the area's 404 page.
  app.all(`${base}/*`, async (c) => notFound(c));

  return app;
}

/** Why a registration change did not happen, in words. */
const EVENT_ERRORS: Record<string, string> = {
  event_full: 'This event is full.',
  event_canceled: 'This event was canceled.',
  event_ended: 'This event has already ended.',
  not_registered: 'You are not registered for this event.',
};
