/**
 * A school's learning area (product.md §10), one sub-app mounted at `/schools/<subdomain>/learn`:
 * My courses, a course's overview and its player, and the member's orders, events and
 * subscription. Who opens a lecture is the domain's rule (domain/learning/lecture-access.ts);
 * progress is recorded only through recordMemberLectureProgress, the rule the Account API and
 * the member tools use. Handlers throw refusals; `onError` (area.ts) renders them.
 */
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import type { Lecture } from '../../domain/catalog/curriculum-rows.ts';
import { decideLectureAccess, type LectureAccess } from '../../domain/learning/lecture-access.ts';
import { gradeQuiz } from '../../domain/learning/quizzes.ts';
import { recordMemberLectureProgress } from '../../domain/member/member-account.ts';
import { getStoredFile, type StoredFile } from '../../domain/school/storage.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import type { AppContext } from '../../http/context.ts';
import { sendPage } from '../layout.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import { PageRefusal } from '../shared/refusal.ts';
import {
  type CourseAccess,
  courseAccess,
  learnerEnrollments,
  learnPath,
  lecturePath,
  lecturesOf,
  notFound,
  plausibleId,
} from './access.ts';
import { type LearnEnv, type LearnHandler, learnerMiddleware, renderLearnError } from './area.ts';
import { createLectureFilesApp } from './files.ts';
import { memberPageRoutes } from './member-pages.ts';
import { PLAYER_SCRIPT_PATH, playerPage } from './player-view.ts';
import { courseOverviewPage, myCoursesPage } from './views.ts';

const PLAYER_SCRIPT = readFileSync(new URL('./player.js', import.meta.url), 'utf8');

/** Where the area is mounted. */
export const LEARN_PREFIX = '/schools/:subdomain/learn';

/** The course of the path and the lecture of the path in it, with the learner's access to it. */
async function lectureOfRequest(
  ctx: AppContext,
  c: Parameters<LearnHandler>[0],
): Promise<{ access: CourseAccess; lecture: Lecture; open: LectureAccess }> {
  const learner = c.var.learner;
  const access = await courseAccess(ctx, learner, c.req.param('slug'));
  const id = c.req.param('lectureId');
  const lecture = plausibleId(id) ? lecturesOf(access.sections).find((l) => l.id === id) : undefined;
  if (!lecture) throw notFound(learner.school);
  const open = decideLectureAccess({
    course: access.course,
    lecture,
    person: { member: true },
    enrollment: access.kind === 'enrolled' ? access.enrollment : undefined,
    staff: access.kind === 'staff',
  });
  return { access, lecture, open };
}

/** The stored file of a lecture, when it has one that still exists. */
async function fileOf(ctx: AppContext, schoolId: string, lecture: Lecture): Promise<StoredFile | undefined> {
  if (!lecture.fileId) return undefined;
  try {
    return await getStoredFile(ctx.db, schoolId, lecture.fileId);
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

/** My courses. */
const myCourses =
  (ctx: AppContext): LearnHandler =>
  async (c) => {
    const learner = c.var.learner;
    const enrollments = await learnerEnrollments(ctx, learner);
    return sendAreaPage(c, 200, `My courses · ${learner.school.name}`, myCoursesPage(learner, enrollments));
  };

/** A course's overview and outline. */
const courseOverview =
  (ctx: AppContext): LearnHandler =>
  async (c) => {
    const learner = c.var.learner;
    const access = await courseAccess(ctx, learner, c.req.param('slug'));
    const enrolled = access.kind === 'enrolled' ? access : undefined;
    return sendAreaPage(
      c,
      200,
      access.course.title,
      courseOverviewPage(
        learner,
        access.course,
        access.sections,
        enrolled?.enrollment,
        enrolled?.progress ?? new Map(),
      ),
    );
  };

/** "Start": the first lecture of the course (Continue when nothing was watched yet). */
const startCourse =
  (ctx: AppContext): LearnHandler =>
  async (c) => {
    const learner = c.var.learner;
    const access = await courseAccess(ctx, learner, c.req.param('slug'));
    const first = lecturesOf(access.sections)[0];
    if (!first) return c.redirect(learnPath(learner.school, `/courses/${access.course.slug}`), 303);
    return c.redirect(lecturePath(learner.school, access.course.slug, first.id), 303);
  };

/** The player: a lecture beside the course outline (403 with the outline once access ended). */
const lecturePlayer =
  (ctx: AppContext): LearnHandler =>
  async (c) => {
    const learner = c.var.learner;
    const { access, lecture, open } = await lectureOfRequest(ctx, c);
    const query = new URL(c.req.url).searchParams;
    const grade =
      open.ok && lecture.type === 'quiz' && query.has('checked')
        ? gradeQuiz(lecture.body, answersOf(query))
        : undefined;
    const page = playerPage({
      learner,
      course: access.course,
      sections: access.sections,
      lecture,
      open,
      enrollment: access.kind === 'enrolled' ? access.enrollment : undefined,
      progress: access.kind === 'enrolled' ? access.progress : new Map(),
      file: open.ok ? await fileOf(ctx, learner.school.id, lecture) : undefined,
      grade,
      done: c.req.query('done'),
    });
    return sendPage(c, open.ok ? 200 : 403, `${lecture.title} · ${access.course.title}`, page.body, {
      formAction: ["'self'"],
      wide: true,
      directives: page.directives,
    });
  };

/**
 * Completes a lecture through the one progress rule (a quiz only with answers that pass it);
 * the place in a video stays where it was saved.
 */
async function complete(
  ctx: AppContext,
  c: Parameters<LearnHandler>[0],
  access: CourseAccess,
  lecture: Lecture,
  answers?: Array<number | null>,
): Promise<void> {
  const learner = c.var.learner;
  const back = [
    { href: lecturePath(learner.school, access.course.slug, lecture.id), label: 'Back to the lecture' },
  ];
  if (access.kind === 'staff') {
    throw new PageRefusal(
      403,
      'No progress to record',
      'Only students of this course record progress in it.',
      {
        links: back,
      },
    );
  }
  try {
    await recordMemberLectureProgress(ctx.db, learner.scope, {
      lectureId: lecture.id,
      positionSeconds: access.progress.get(lecture.id)?.positionSeconds ?? 0,
      completed: true,
      answers,
    });
  } catch (err) {
    if (err instanceof ProblemError && err.code === 'quiz_not_passed') {
      throw new PageRefusal(422, 'Answer the quiz to complete it', err.detail ?? err.title, { links: back });
    }
    throw err;
  }
}

/** Mark complete: then on to the next lecture (or back to this one, the last). */
const completeLecture =
  (ctx: AppContext): LearnHandler =>
  async (c) => {
    const learner = c.var.learner;
    const { access, lecture } = await lectureOfRequest(ctx, c);
    await complete(ctx, c, access, lecture);
    const all = lecturesOf(access.sections);
    const next = all[all.findIndex((l) => l.id === lecture.id) + 1];
    const slug = access.course.slug;
    return next
      ? c.redirect(`${lecturePath(learner.school, slug, next.id)}?done=next`, 303)
      : c.redirect(`${lecturePath(learner.school, slug, lecture.id)}?done=completed`, 303);
  };

/** Check answers: grades the quiz, completes it when passed (students), shows the grade. */
const answerQuiz =
  (ctx: AppContext): LearnHandler =>
  async (c) => {
    const learner = c.var.learner;
    const { access, lecture, open } = await lectureOfRequest(ctx, c);
    if (lecture.type !== 'quiz') throw notFound(learner.school);
    const answers = answersOf(c.var.form);
    const grade = gradeQuiz(lecture.body, answers);
    if (grade.passed && access.kind === 'enrolled' && open.ok)
      await complete(ctx, c, access, lecture, answers);
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
  };

/** Where the player script saves the video position: 204, or the refusal's status and page. */
const savePosition =
  (ctx: AppContext): LearnHandler =>
  async (c) => {
    const learner = c.var.learner;
    const id = c.req.param('lectureId');
    if (!plausibleId(id)) throw notFound(learner.school);
    const raw = c.var.form.get('position') ?? '';
    if (!/^\d{1,7}$/.test(raw) || Number(raw) > 1_000_000) {
      throw new PageRefusal(
        400,
        'Position not valid',
        'The position must be a whole number of seconds from 0 to 1,000,000.',
      );
    }
    await recordMemberLectureProgress(ctx.db, learner.scope, { lectureId: id, positionSeconds: Number(raw) });
    return c.body(null, 204);
  };

/** The player's script: one file, the same for every school. */
const playerScript: LearnHandler = async (c) =>
  c.body(PLAYER_SCRIPT, 200, {
    'Content-Type': 'text/javascript; charset=utf-8',
    'Cache-Control': 'public, max-age=3600',
  });

/** The learning area, to be mounted at LEARN_PREFIX. */
export function createLearnPagesApp(ctx: AppContext): Hono<LearnEnv> {
  const app = new Hono<LearnEnv>();
  app.onError(renderLearnError);
  // Open to anyone: the script, and lecture files (which check their own reader).
  app.get(PLAYER_SCRIPT_PATH, playerScript);
  app.route('/', createLectureFilesApp(ctx));
  app.use('*', learnerMiddleware(ctx));
  app.get('/', myCourses(ctx));
  app.get('/courses/:slug', courseOverview(ctx));
  app.get('/courses/:slug/start', startCourse(ctx));
  app.get('/courses/:slug/lectures/:lectureId', lecturePlayer(ctx));
  app.post('/courses/:slug/lectures/:lectureId/complete', completeLecture(ctx));
  app.post('/courses/:slug/lectures/:lectureId/quiz', answerQuiz(ctx));
  app.post('/courses/:slug/lectures/:lectureId/position', savePosition(ctx));
  memberPageRoutes(ctx, app);
  // Anything else under the area is the area's 404 page.
  app.all('/*', async (c) => {
    throw notFound(c.var.learner.school);
  });
  return app;
}
