/**
 * Who may use a school's learning area and what they may open there: a signed-in member of the
 * school (any role) sees their own enrollments; a course's lecture content reaches its enrolled
 * students with access, its lecturers and the school's operators. Every read goes through the
 * member functions the Account API uses (domain/member/), so both surfaces see the same rows.
 */
import type { Context } from 'hono';
import { html } from 'hono/html';
import { type Course, findCourseBySlug } from '../../domain/catalog/courses.ts';
import { loadCurricula } from '../../domain/catalog/curriculum.ts';
import type { Lecture, Section } from '../../domain/catalog/curriculum-rows.ts';
import { findLecturerByUser } from '../../domain/catalog/lecturers.ts';
import type { Page, PageParams } from '../../domain/kernel/pagination.ts';
import type { EnrollmentSummary } from '../../domain/learning/enrollments.ts';
import type { LectureProgress } from '../../domain/learning/lecture-progress.ts';
import { loadMemberCurricula, loadMemberLectureProgress } from '../../domain/member/member-account.ts';
import { listMemberEnrollmentSummaries, type MemberScope } from '../../domain/member/member-reads.ts';
import { findMembership } from '../../domain/school/memberships.ts';
import type { Role } from '../../domain/school/roles.ts';
import { SchoolSettingsFields } from '../../domain/school/school-settings.ts';
import { findSchoolBySubdomain, type School } from '../../domain/school/schools.ts';
import { may, mayActFor, standingRoles } from '../../domain/school/standing.ts';
import type { AppContext } from '../../http/context.ts';
import { sendPage } from '../layout.ts';
import { notice, requireViewer, type Viewer } from '../shared/page-kit.ts';
import { type SchoolFormat, schoolFormat } from './format.ts';

/** A signed-in member in the learning area of one school. */
export interface Learner {
  readonly viewer: Viewer;
  readonly school: School;
  readonly scope: MemberScope;
  readonly roles: readonly Role[];
  readonly format: SchoolFormat;
}

/** Paths of the learning area of a school. */
export const learnPath = (school: Pick<School, 'subdomain'>, rest = '') =>
  `/schools/${encodeURIComponent(school.subdomain)}/learn${rest}`;
export const sitePath = (school: Pick<School, 'subdomain'>, rest = '') =>
  `/schools/${encodeURIComponent(school.subdomain)}${rest}`;
export const coursePath = (school: Pick<School, 'subdomain'>, slug: string, rest = '') =>
  learnPath(school, `/courses/${encodeURIComponent(slug)}${rest}`);
export const lecturePath = (school: Pick<School, 'subdomain'>, slug: string, lectureId: string) =>
  coursePath(school, slug, `/lectures/${encodeURIComponent(lectureId)}`);
export const filePath = (school: Pick<School, 'subdomain'>, lectureId: string) =>
  learnPath(school, `/files/${encodeURIComponent(lectureId)}`);

// What ids and slugs look like: anything else is not looked up at all (a 404 page, never a 500
// from a value the database refuses).
const ID = /^[a-z]{3}_[0-9a-z]{10,40}$/;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const plausibleId = (value: string | undefined): value is string =>
  value !== undefined && ID.test(value);
const plausibleSlug = (value: string | undefined): value is string =>
  value !== undefined && value.length <= 100 && SLUG.test(value);
// A subdomain follows the school settings' rule (punycode like `xn--mnchen-3ya` included).
const plausibleSubdomain = (value: string | undefined): value is string =>
  value !== undefined && SchoolSettingsFields.shape.subdomain.safeParse(value).success;

/** A page with one message inside the school's learning area, with ways on. */
export function learnMessage(
  c: Context,
  status: number,
  title: string,
  message: string,
  links: ReadonlyArray<{ href: string; label: string }>,
): Promise<Response> {
  const body = html`<h1>${title}</h1>
${notice(status >= 400 ? 'error' : 'success', message)}
<ul>${links.map((l) => html`<li><a href="${l.href}">${l.label}</a></li>`)}</ul>`;
  return sendPage(c, status, title, body, { formAction: ["'self'"] });
}

/** The 404 page: unknown schools, courses, lectures and another school's ids all get this. */
export function notFound(c: Context, school?: School): Promise<Response> {
  return learnMessage(
    c,
    404,
    'Page not found',
    'There is nothing at this address. It may have been moved or removed.',
    school
      ? [{ href: learnPath(school), label: 'Go to My courses' }]
      : [{ href: '/account', label: 'Go to your account' }],
  );
}

/** The school of the path, or undefined (the path's subdomain is checked before any lookup). */
export async function schoolOfRequest(ctx: AppContext, c: Context): Promise<School | undefined> {
  const subdomain = c.req.param('subdomain');
  if (!plausibleSubdomain(subdomain)) return undefined;
  return findSchoolBySubdomain(ctx.db, subdomain);
}

/**
 * The learner of the request: the school of the path (else the 404 page), signed in (else
 * /login, coming back here) and a member of the school (else a 403 page that says how to join).
 */
export async function learnerOfRequest(ctx: AppContext, c: Context): Promise<Learner | Response> {
  const school = await schoolOfRequest(ctx, c);
  if (!school) return notFound(c);
  const viewer = await requireViewer(ctx, c, learnPath(school));
  if (viewer instanceof Response) return viewer;
  const roles = standingRoles(await findMembership(ctx.db, school.id, viewer.user.id));
  if (roles.length === 0) {
    return learnMessage(
      c,
      403,
      `Not a student of ${school.name}`,
      `You are signed in as ${viewer.user.email}, who is not a student of ${school.name}. Sign up at the school's site, or sign in with the account you use there.`,
      [
        { href: sitePath(school), label: `Go to ${school.name}` },
        { href: '/account', label: 'Go to your account' },
      ],
    );
  }
  return {
    viewer,
    school,
    scope: { schoolId: school.id, userId: viewer.user.id },
    roles,
    format: schoolFormat(school),
  };
}

/** Every item of a paged member list (a member's lists are short; the cap guards the loop). */
export async function allPages<T>(read: (page: PageParams) => Promise<Page<T>>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await read({ limit: 100, cursor });
    out.push(...page.data);
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return out;
}

/** The learner's enrollments as the Account API lists them, oldest first. */
export function learnerEnrollments(ctx: AppContext, learner: Learner): Promise<EnrollmentSummary[]> {
  return allPages((page) => listMemberEnrollmentSummaries(ctx.db, learner.scope, page));
}

/** What the learner may do with a course. */
export type CourseAccess =
  | {
      readonly kind: 'enrolled';
      readonly course: Course;
      readonly enrollment: EnrollmentSummary;
      readonly sections: Section[];
      readonly progress: ReadonlyMap<string, LectureProgress>;
    }
  /** A lecturer of the course or an operator of the school, not enrolled: content, no progress. */
  | { readonly kind: 'staff'; readonly course: Course; readonly sections: Section[] }
  | { readonly kind: 'not-enrolled'; readonly course: Course };

/** Whether the learner operates the school or teaches this course (their lecturer profile is on it). */
export async function isStaffOf(ctx: AppContext, learner: Learner, course: Course): Promise<boolean> {
  if (mayActFor('operator', learner.roles)) return true;
  if (!may(learner.roles, 'teach')) return false;
  const lecturer = await findLecturerByUser(ctx.db, learner.school.id, learner.scope.userId);
  return lecturer !== undefined && course.lecturers.some((l) => l.id === lecturer.id);
}

/**
 * The learner's access to the course of this slug, or undefined when it is none of theirs to
 * know about (unknown, or a draft or archived course they are not enrolled in and do not teach).
 */
export async function courseAccess(
  ctx: AppContext,
  learner: Learner,
  slug: string | undefined,
): Promise<CourseAccess | undefined> {
  if (!plausibleSlug(slug)) return undefined;
  const course = await findCourseBySlug(ctx.db, learner.school.id, slug);
  if (!course) return undefined;
  const enrollment = (await learnerEnrollments(ctx, learner)).find((e) => e.courseId === course.id);
  if (enrollment) {
    const sections = (await loadMemberCurricula(ctx.db, learner.scope, [course.id])).get(course.id) ?? [];
    const progress =
      (await loadMemberLectureProgress(ctx.db, learner.scope, [enrollment.id])).get(enrollment.id) ??
      new Map<string, LectureProgress>();
    return { kind: 'enrolled', course, enrollment, sections, progress };
  }
  if (await isStaffOf(ctx, learner, course)) {
    const sections = (await loadCurricula(ctx.db, learner.school.id, [course.id])).get(course.id) ?? [];
    return { kind: 'staff', course, sections };
  }
  return course.status === 'published' ? { kind: 'not-enrolled', course } : undefined;
}

/** The lectures of a curriculum in order. */
export function lecturesOf(sections: readonly Section[]): Lecture[] {
  return sections.flatMap((s) => s.lectures);
}

/** The page for a member who is not enrolled in a course: what to do, and where. */
export function notEnrolledPage(c: Context, learner: Learner, course: Course): Promise<Response> {
  return learnMessage(
    c,
    403,
    "You're not enrolled in this course",
    `"${course.title}" is not one of your courses at ${learner.school.name}. Its page at the school shows how to enrol, and its free previews.`,
    [
      {
        href: sitePath(learner.school, `/courses/${encodeURIComponent(course.slug)}`),
        label: `See ${course.title}`,
      },
      { href: learnPath(learner.school), label: 'Go to My courses' },
    ],
  );
}
