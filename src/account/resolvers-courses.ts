import type { Lecture, Section } from '../domain/catalog/curriculum-rows.ts';
import type { CoursesTable } from '../domain/kernel/tables.ts';
import type { EnrollmentSummary } from '../domain/learning/enrollments.ts';
import {
  decideLectureAccess,
  type LectureContent,
  lectureContent,
} from '../domain/learning/lecture-access.ts';
import type { LectureProgress } from '../domain/learning/lecture-progress.ts';
import type { AccountContext } from './context.ts';

/** What the lectures below a course need to know about the member's enrollment. */
interface EnrollmentRef {
  readonly id: string;
  /** Access not expired: lecture content is shown only then (free previews always). */
  readonly active: boolean;
}

interface CourseNode {
  readonly course: CoursesTable;
  readonly enrollment: EnrollmentRef;
}
interface SectionNode {
  readonly section: Section;
  readonly course: CoursesTable;
  readonly enrollment: EnrollmentRef;
}
interface LectureNode {
  readonly lecture: Lecture;
  readonly course: CoursesTable;
  readonly enrollment: EnrollmentRef;
}

const ref = (e: EnrollmentSummary): EnrollmentRef => ({ id: e.id, active: e.active });
/** What of a lecture the member sees: the one lecture-access rule, for a member enrolled in its course. */
const content = (n: LectureNode): LectureContent =>
  lectureContent(
    n.lecture,
    decideLectureAccess({
      course: n.course,
      lecture: n.lecture,
      person: { member: true },
      enrollment: n.enrollment,
      staff: false,
    }),
  );

/** Resolvers of EnrolledCourse and the course tree below it. */
export const courseResolvers = {
  EnrolledCourse: {
    slug: (e: EnrollmentSummary) => e.course.slug,
    title: (e: EnrollmentSummary) => e.course.title,
    expireDate: (e: EnrollmentSummary) => e.expiresAt,
    hasLifetimeAccess: (e: EnrollmentSummary) => e.lifetime,
    hasAccess: (e: EnrollmentSummary) => e.active,
    lastWatchedLecture: (e: EnrollmentSummary) =>
      e.lastLectureId
        ? {
            lectureId: e.lastLectureId,
            positionSeconds: e.lastPositionSeconds ?? 0,
            watchedAt: e.lastWatchedAt,
          }
        : null,
    course: async (e: EnrollmentSummary, _: unknown, ctx: AccountContext): Promise<CourseNode> => {
      const course = await ctx.loaders.courses.load(e.courseId);
      if (!course) throw new Error(`course ${e.courseId} of enrollment ${e.id} is missing`);
      return { course, enrollment: ref(e) };
    },
  },
  Course: {
    id: (n: CourseNode) => n.course.id,
    slug: (n: CourseNode) => n.course.slug,
    title: (n: CourseNode) => n.course.title,
    description: (n: CourseNode) => n.course.description,
    imageUrl: (n: CourseNode) => n.course.image_url,
    lectureCount: async (n: CourseNode, _: unknown, ctx: AccountContext) =>
      (await ctx.loaders.curricula.load(n.course.id)).reduce((sum, s) => sum + s.lectures.length, 0),
    sections: async (n: CourseNode, _: unknown, ctx: AccountContext): Promise<SectionNode[]> =>
      (await ctx.loaders.curricula.load(n.course.id)).map((section) => ({
        section,
        course: n.course,
        enrollment: n.enrollment,
      })),
  },
  Section: {
    id: (n: SectionNode) => n.section.id,
    title: (n: SectionNode) => n.section.title,
    position: (n: SectionNode) => n.section.position,
    lectures: (n: SectionNode): LectureNode[] =>
      n.section.lectures.map((lecture) => ({ lecture, course: n.course, enrollment: n.enrollment })),
  },
  Lecture: {
    id: (n: LectureNode) => n.lecture.id,
    title: (n: LectureNode) => n.lecture.title,
    type: (n: LectureNode) => n.lecture.type.toUpperCase(),
    durationSeconds: (n: LectureNode) => n.lecture.durationSeconds,
    isFreePreview: (n: LectureNode) => n.lecture.isFreePreview,
    position: (n: LectureNode) => n.lecture.position,
    body: (n: LectureNode) => content(n).body,
    videoUrl: (n: LectureNode) => content(n).videoUrl,
    quiz: (n: LectureNode) => content(n).quiz,
    progress: async (n: LectureNode, _: unknown, ctx: AccountContext): Promise<LectureProgress | null> =>
      (await ctx.loaders.lectureProgress.load(n.enrollment.id)).get(n.lecture.id) ?? null,
  },
};
