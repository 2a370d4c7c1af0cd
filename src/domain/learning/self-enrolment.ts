import { ProblemError } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { findMembership } from '../school/memberships.ts';
import { standingRoles } from '../school/standing.ts';
import { trustedAt, type User } from '../school/users.ts';
import { enroll } from './enrollments.ts';

/**
 * Self-enrolment: a signed-in person enrolling themself in a course of a school's site (the
 * "Enrol" button). Operators enrol anyone through the admin API; this is the person's own way in,
 * and every surface that offers it asks these functions.
 */

/** Why a person may not enrol themself. */
export type SelfEnrolRefusal =
  /** The course is sold: it is bought through the school's checkout, never enrolled for free. */
  | 'not_free'
  /** Enrolling makes a student of the school; while its sign-up is closed only members may. */
  | 'signup_closed'
  /** The account's email is unproven and it was made at another school (users.unverified_school_id). */
  | 'email_unconfirmed';

export type SelfEnrolDecision =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: SelfEnrolRefusal };

/** The school as the rule needs it. */
export interface EnrollingSchool {
  readonly id: string;
  readonly signupOpen: boolean;
}

/** The course as the rule needs it. */
export interface EnrollingCourse {
  readonly courseId: string;
  readonly free: boolean;
}

const refused = (reason: SelfEnrolRefusal): SelfEnrolDecision => ({ ok: false, reason });

/** Whether `user` may enrol themself in `course` at `school`, and if not, why. */
export async function selfEnrolment(
  db: Db | Tx,
  school: EnrollingSchool,
  user: Pick<User, 'id' | 'unverified_school_id'>,
  course: EnrollingCourse,
): Promise<SelfEnrolDecision> {
  if (!course.free) return refused('not_free');
  if (!school.signupOpen) {
    const membership = await findMembership(db, school.id, user.id);
    if (standingRoles(membership).length === 0) return refused('signup_closed');
  }
  if (!trustedAt(user, school.id)) return refused('email_unconfirmed');
  return { ok: true };
}

/**
 * Enrols `user` in `course` when selfEnrolment allows it (lifetime access, source `manual`);
 * enrolling again changes nothing and is allowed.
 */
export async function enrolSelf(
  db: Db | Tx,
  school: EnrollingSchool,
  user: Pick<User, 'id' | 'unverified_school_id'>,
  course: EnrollingCourse,
): Promise<SelfEnrolDecision> {
  const decision = await selfEnrolment(db, school, user, course);
  if (!decision.ok) return decision;
  try {
    await enroll(db, school.id, { userId: user.id, courseId: course.courseId });
  } catch (err) {
    if (!(err instanceof ProblemError && err.code === 'already_enrolled')) throw err;
  }
  return decision;
}
