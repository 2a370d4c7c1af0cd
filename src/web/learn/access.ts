/**
 * Who may use a school's learning area and what they may open there: a signed-in member of the
 * school (any role) sees their own enrollments; who opens a course's lectures is the domain's
 * one rule (domain/learning/lecture-access.ts). Every read goes through the member functions the
 * Account API uses (domain/member/), so both surfaces see the same rows.
 */
import type { Context } from 'hono';
import { type Course, findCourseBySlug } from '../../domain/catalog/courses.ts';
import { loadCurricula } from '../../domain/catalog/curriculum.ts';
import type { Lecture, Section } from '../../domain/catalog/curriculum-rows.ts';
import type { Page, PageParams } from '../../domain/kernel/pagination.ts';
import type { EnrollmentSummary } from '../../domain/learning/enrollments.ts';
import { decideLectureAccess, isStaffOf, type LectureAccess } from '../../domain/learning/lecture-access.ts';
import type { LectureProgress } from '../../domain/learning/lecture-progress.ts';
import { loadMemberCurricula, loadMemberLectureProgress } from '../../domain/member/member-account.ts';
import { listMemberEnrollmentSummaries, type MemberScope } from '../../domain/member/member-reads.ts';
import { findMembership } from '../../domain/school/memberships.ts';
import type { Role } from '../../domain/school/roles.ts';
import { SchoolSettingsFields } from '../../domain/school/school-settings.ts';
import { findSchoolBySubdomain, type School } from '../../domain/school/schools.ts';
import { standingRoles } from '../../domain/school/standing.ts';
import type { AppContext } from '../../http/context.ts';
import type { Viewer } from '../shared/page-kit.ts';
import { PageRedirect, PageRefusal } from '../shared/refusal.ts';
import { type SchoolFormat, schoolFormat } from '../shared/school-format.ts';
import { signedInViewer } from '../shared/viewer.ts';

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

/** The learning area's 404: unknown schools, courses, lectures and another school's ids alike. */
export function notFound(school?: Pick<School, 'subdomain'>): PageRefusal {
  return new PageRefusal(
    404,
    'Page not found',
    'There is nothing at this address. It may have been moved or removed.',
    {
      links: school
        ? [{ href: learnPath(school), label: 'Go to My courses' }]
        : [{ href: '/account', label: 'Go to your account' }],
    },
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
 * Thrown as refusals.
 */
export async function learnerOfRequest(ctx: AppContext, c: Context): Promise<Learner> {
  const school = await schoolOfRequest(ctx, c);
  if (!school) throw notFound();
  const viewer = await signedInViewer(ctx, c, learnPath(school));
  const { user } = viewer;
  const roles = standingRoles(await findMembership(ctx.db, school.id, user.id));
  if (roles.length === 0) {
    throw new PageRefusal(
      403,
      `Not a student of ${school.name}`,
      `You are signed in as ${user.email}, who is not a student of ${school.name}. Sign up at the school's site, or sign in with the account you use there.`,
      {
        links: [
          { href: sitePath(school), label: `Go to ${school.name}` },
          { href: '/account', label: 'Go to your account' },
        ],
      },
    );
  }
  return {
    viewer,
    school,
    scope: { schoolId: school.id, userId: user.id },
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

/** What the learner may do with a course: its rule is the domain's (decideLectureAccess). */
export type CourseAccess =
  | {
      readonly kind: 'enrolled';
      readonly course: Course;
      readonly enrollment: EnrollmentSummary;
      readonly sections: Section[];
      readonly progress: ReadonlyMap<string, LectureProgress>;
    }
  /** A lecturer of the course or an operator of the school, not enrolled: content, no progress. */
  | { readonly kind: 'staff'; readonly course: Course; readonly sections: Section[] };

/**
 * The learner's access to the course of this slug: the enrolled student's or the staff's view,
 * else the refusal (unknown, or a draft they neither take nor teach: 404; published but not
 * theirs: the page saying how to enrol).
 */
export async function courseAccess(
  ctx: AppContext,
  learner: Learner,
  slug: string | undefined,
): Promise<CourseAccess> {
  if (!plausibleSlug(slug)) throw notFound(learner.school);
  const course = await findCourseBySlug(ctx.db, learner.school.id, slug);
  if (!course) throw notFound(learner.school);
  const enrollment = (await learnerEnrollments(ctx, learner)).find((e) => e.courseId === course.id);
  const person = { userId: learner.scope.userId, roles: learner.roles };
  const staff = !enrollment && (await isStaffOf(ctx.db, learner.school.id, person, course));
  const access = decideLectureAccess({ course, person: { member: true }, enrollment, staff });
  if (!access.ok) throw accessRefusal(learner, course, access.reason);
  if (enrollment) {
    const sections = (await loadMemberCurricula(ctx.db, learner.scope, [course.id])).get(course.id) ?? [];
    const progress =
      (await loadMemberLectureProgress(ctx.db, learner.scope, [enrollment.id])).get(enrollment.id) ??
      new Map<string, LectureProgress>();
    return { kind: 'enrolled', course, enrollment, sections, progress };
  }
  const sections = (await loadCurricula(ctx.db, learner.school.id, [course.id])).get(course.id) ?? [];
  return { kind: 'staff', course, sections };
}

/** The lectures of a curriculum in order. */
export function lecturesOf(sections: readonly Section[]): Lecture[] {
  return sections.flatMap((s) => s.lectures);
}

/** A refusal of the lecture-access rule in the learning area's words. */
export function accessRefusal(
  learner: Pick<Learner, 'school'>,
  course: Pick<Course, 'slug' | 'title'>,
  reason: Extract<LectureAccess, { ok: false }>['reason'],
): PageRefusal | PageRedirect {
  const school = learner.school;
  const links = [
    { href: sitePath(school, `/courses/${encodeURIComponent(course.slug)}`), label: `See ${course.title}` },
    { href: learnPath(school), label: 'Go to My courses' },
  ];
  switch (reason) {
    case 'not_enrolled':
      return new PageRefusal(
        403,
        "You're not enrolled in this course",
        `"${course.title}" is not one of your courses at ${school.name}. Its page at the school shows how to enrol, and its free previews.`,
        { links },
      );
    case 'access_expired':
      return new PageRefusal(
        403,
        'Your access has ended',
        `Your access to "${course.title}" has ended. Contact the school to renew it.`,
        { links },
      );
    case 'sign_in':
      return new PageRedirect(`/login?return_to=${encodeURIComponent(learnPath(school))}`);
    default:
      return notFound(school);
  }
}
