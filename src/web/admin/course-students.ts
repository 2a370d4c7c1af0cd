/**
 * `/admin/<school>/courses/<course>/students`: who is enrolled in one course and how far each has
 * got, for the school's operators and the course's lecturers (product.md §8: "their students'
 * progress"). Read through `students.list_enrollments` (runForConsole, so the teaching rule
 * decides for lecturers), paged by the API's cursor.
 */
import { Hono } from 'hono';
import { html } from 'hono/html';
import { ProblemError } from '../../errors/problem-error.ts';
import type { Html } from '../layout.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import { PageRefusal } from '../shared/refusal.ts';
import { longDay, timeOf } from '../shared/school-format.ts';
import { type Area, areaNav, areaPath } from './area.ts';
import { type ConsoleContext, type ConsoleEnv, staff } from './console-env.ts';
import { runForConsole } from './console-kit.ts';

const PAGE_SIZE = 25;

/** An enrollment as `students.list_enrollments` gives it (the fields this page shows). */
interface Enrollment {
  readonly user: { readonly name: string; readonly email: string };
  readonly enrolled_at: string;
  readonly expires_at: string | null;
  readonly active: boolean;
  readonly progress_percent: number;
  readonly completed_at: string | null;
  readonly last_watched_at: string | null;
}

/** Access in words: lifetime, until a day, or ended on a day. */
function access(area: Area, e: Enrollment): string {
  if (e.expires_at === null) return 'Lifetime';
  const day = longDay(area.school, e.expires_at);
  return e.active ? `Until ${day}` : `Ended on ${day}`;
}

function studentsPage(
  area: Area,
  course: { id: string; title: string },
  enrollments: readonly Enrollment[],
  next: string | null,
  first: boolean,
): Html {
  const path = (rest = '') => areaPath(area.school.id, `/courses/${encodeURIComponent(course.id)}${rest}`);
  const rows = enrollments.map(
    (e) => html`<tr>
<td data-label="Student">${e.user.name}<br><span class="muted">${e.user.email}</span></td>
<td data-label="Progress"><progress max="100" value="${e.progress_percent}" aria-label="Progress of ${e.user.name}">${e.progress_percent} %</progress> ${e.progress_percent} %${e.completed_at ? html` · completed ${timeOf(area.school, e.completed_at)}` : ''}</td>
<td data-label="Last active">${e.last_watched_at ? timeOf(area.school, e.last_watched_at) : html`<span class="muted">Not started</span>`}</td>
<td data-label="Access">${access(area, e)}</td>
<td data-label="Enrolled">${timeOf(area.school, e.enrolled_at)}</td>
</tr>`,
  );
  const pager = [
    first ? '' : html`<a href="${path('/students')}">First page</a>`,
    next ? html`<a href="${path(`/students?cursor=${encodeURIComponent(next)}`)}">Next page</a>` : '',
  ];
  return html`${areaNav(area, 'courses')}
<p><a href="${path()}">${course.title}</a></p>
<h1>Students of ${course.title}</h1>
${
  enrollments.length === 0 && first
    ? html`<p>Nobody is enrolled in this course yet.</p>`
    : html`<div class="table-wrap" role="region" aria-label="Students and their progress" tabindex="0"><table class="stack">
<thead><tr><th scope="col">Student</th><th scope="col">Progress</th><th scope="col">Last active</th><th scope="col">Access</th><th scope="col">Enrolled</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}
<div class="pager">${pager}</div>`;
}

/** A course's students and their progress, a page at a time. */
async function showCourseStudents(c: ConsoleContext): Promise<Response> {
  const { area, app: ctx } = c.var;
  const courseId = c.req.param('course') ?? '';
  const cursor = c.req.query('cursor');
  try {
    const course = (await runForConsole(ctx, area, 'courses.get', { params: { course_id: courseId } }))
      .body as { id: string; title: string };
    const page = await runForConsole(ctx, area, 'students.list_enrollments', {
      query: { course_id: course.id, limit: String(PAGE_SIZE), ...(cursor ? { cursor } : {}) },
    });
    const { data, next_cursor } = page.body as { data: Enrollment[]; next_cursor: string | null };
    return sendAreaPage(
      c,
      200,
      `${area.school.name} · Students of ${course.title}`,
      studentsPage(area, course, data, next_cursor, cursor === undefined),
    );
  } catch (err) {
    if (!(err instanceof ProblemError) || ![400, 404, 422].includes(err.status)) throw err;
    const missing = err.status === 404 || err.errors?.some((e) => e.field.startsWith('params.'));
    const back = {
      href: areaPath(
        area.school.id,
        missing ? '/courses' : `/courses/${encodeURIComponent(courseId)}/students`,
      ),
      label: missing ? 'Back to courses' : 'First page of students',
    };
    throw new PageRefusal(
      missing ? 404 : 400,
      missing ? 'No such course' : 'That page does not exist',
      missing
        ? `There is no such course among ${area.teaching ? 'the courses you teach' : `the courses of ${area.school.name}`}.`
        : 'That page of students does not exist: start again from the first page.',
      { links: [back] },
    );
  }
}

/** The course students page, beside the console's course pages (lecturers open it too). */
export function courseStudentsRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/:school/courses/:course/students', staff, showCourseStudents);
  return app;
}
