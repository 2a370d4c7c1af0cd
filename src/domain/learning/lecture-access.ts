import type { Db, Tx } from '../../store/database.ts';
import { type Course, findCourse } from '../catalog/courses.ts';
import type { Lecture } from '../catalog/curriculum-rows.ts';
import { findLecturerByUser } from '../catalog/lecturers.ts';
import { findMembership } from '../school/memberships.ts';
import type { Role } from '../school/roles.ts';
import { may, mayActFor, standingRoles } from '../school/standing.ts';
import { findEnrollmentOf } from './enrollments.ts';
import { type AskedQuestion, QUIZ_PASS_PERCENT, quizQuestions } from './quizzes.ts';

/**
 * Who may open a course's lectures, their content and their files: one rule asked by the
 * learning area (course pages, the player, file downloads), the school site's free previews,
 * the Account API and the member tools. Surfaces put the reason into their own words.
 */

/** Why someone may open it, or why not. */
export type LectureAccess =
  | { readonly ok: true; readonly as: 'enrolled' | 'staff' | 'preview' }
  | {
      readonly ok: false;
      /**
       * `not_found`: nothing they may know of (another school's, a draft they neither take nor
       * teach, or they are no member of the school); `sign_in`: an anonymous visitor who may get
       * further once signed in; `not_enrolled` / `access_expired`: a member without access.
       */
      readonly reason: 'not_found' | 'sign_in' | 'not_enrolled' | 'access_expired';
    };

/** What the rule looks at. */
export interface AccessFacts {
  readonly course: Pick<Course, 'status'>;
  /** The lecture asked for; absent when asking about the course itself (its outline). */
  readonly lecture?: Pick<Lecture, 'isFreePreview'>;
  /** Signed in, and whether they are a member of the school (any role). */
  readonly person?: { readonly member: boolean };
  /** Their enrollment in the course, if any, and whether its access still runs. */
  readonly enrollment?: { readonly active: boolean };
  /** They run the school or teach this course (isStaffOf). */
  readonly staff: boolean;
}

const open = (as: 'enrolled' | 'staff' | 'preview'): LectureAccess => ({ ok: true, as });
const shut = (reason: Extract<LectureAccess, { ok: false }>['reason']): LectureAccess => ({
  ok: false,
  reason,
});

/**
 * The rule: a course's enrolled students open its lectures while their access runs (and its
 * outline always), its lecturers and the school's operators open everything, and anyone opens a
 * free-preview lecture of a published course. A draft or archived course is not found for
 * anyone else, as is everything for a signed-in person who is not a member of the school.
 */
export function decideLectureAccess(f: AccessFacts): LectureAccess {
  const previewable = f.lecture?.isFreePreview === true && f.course.status === 'published';
  // An anonymous visitor learns nothing more than that signing in may help.
  if (!f.person) return previewable ? open('preview') : shut('sign_in');
  if (!f.person.member) return previewable ? open('preview') : shut('not_found');
  if (f.enrollment && (f.enrollment.active || !f.lecture)) return open('enrolled');
  if (f.staff) return open('staff');
  if (previewable || (f.enrollment && f.lecture?.isFreePreview)) return open('preview');
  if (f.enrollment) return shut('access_expired');
  return f.course.status === 'published' ? shut('not_enrolled') : shut('not_found');
}

/** Whether these roles run the school, or teach this course (their lecturer profile is on it). */
export async function isStaffOf(
  db: Db | Tx,
  schoolId: string,
  person: { readonly userId: string; readonly roles: readonly Role[] },
  course: Pick<Course, 'lecturers'>,
): Promise<boolean> {
  if (mayActFor('operator', person.roles)) return true;
  if (!may(person.roles, 'teach')) return false;
  const lecturer = await findLecturerByUser(db, schoolId, person.userId);
  return lecturer !== undefined && course.lecturers.some((l) => l.id === lecturer.id);
}

/**
 * The access of a person (or an anonymous visitor, `userId` undefined) to a lecture of the
 * school, with the facts the rule read (its course, their enrollment).
 */
export async function lectureAccessOf(
  db: Db | Tx,
  schoolId: string,
  userId: string | undefined,
  lecture: Pick<Lecture, 'courseId' | 'isFreePreview'>,
): Promise<{ access: LectureAccess; course?: Course }> {
  const course = await findCourse(db, schoolId, lecture.courseId);
  if (!course) return { access: shut(userId === undefined ? 'sign_in' : 'not_found') };
  if (userId === undefined) {
    return { access: decideLectureAccess({ course, lecture, staff: false }), course };
  }
  const roles = standingRoles(await findMembership(db, schoolId, userId));
  const enrollment = roles.length > 0 ? await findEnrollmentOf(db, schoolId, userId, course.id) : undefined;
  const staff = roles.length > 0 && (await isStaffOf(db, schoolId, { userId, roles }, course));
  return {
    access: decideLectureAccess({ course, lecture, person: { member: roles.length > 0 }, enrollment, staff }),
    course,
  };
}

/** A quiz as a student gets it: questions and choices, never which choice is right. */
export interface QuizShape {
  readonly questions: AskedQuestion[];
  /** The share of questions to answer right to pass, in percent. */
  readonly passPercent: number;
}

/** A lecture's content as a member surface shows it. */
export interface LectureContent {
  /** Text, for text, video and file lectures; never a quiz's body, whose Markdown marks the answers. */
  readonly body: string | null;
  readonly videoUrl: string | null;
  readonly quiz: QuizShape | null;
}

/** The content of a lecture for someone with this access: nothing without it, and never a quiz's key. */
export function lectureContent(
  lecture: Pick<Lecture, 'type' | 'body' | 'videoUrl'>,
  access: LectureAccess,
): LectureContent {
  if (!access.ok) return { body: null, videoUrl: null, quiz: null };
  if (lecture.type === 'quiz') {
    return {
      body: null,
      videoUrl: null,
      quiz: { questions: quizQuestions(lecture.body), passPercent: QUIZ_PASS_PERCENT },
    };
  }
  return { body: lecture.body, videoUrl: lecture.videoUrl, quiz: null };
}
