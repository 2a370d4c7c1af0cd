import { problems } from '../errors/problem-error.ts';
import type { Db, Tx } from '../store/database.ts';
import { type Course, findCourseBySlug, searchCatalogue } from './courses.ts';
import { getCurriculum } from './curriculum.ts';
import { listUpcomingPublicEvents } from './events.ts';
import type { PageParams } from './pagination.ts';
import { findSchoolBySubdomain, type School } from './schools.ts';

/**
 * What anyone may read about a school without signing in: published courses, their outlines
 * (titles, durations, free previews — never lecture bodies, video or file links) and upcoming
 * public events. The anonymous MCP tools read through here and nowhere else.
 */

/** A school as the public sees it. */
export interface PublicSchool {
  name: string;
  subdomain: string;
}

/** A published course as the public sees it. */
export interface PublicCourse {
  slug: string;
  title: string;
  description: string;
  priceAmount: number;
  currency: string;
  free: boolean;
  imageUrl: string | null;
  publishedAt: string | null;
  lecturers: string[];
}

/** A course outline: sections and lecture titles, no paid content. */
export interface PublicOutline {
  course: PublicCourse;
  sections: Array<{
    title: string;
    lectures: Array<{
      id: string;
      title: string;
      type: string;
      durationSeconds: number;
      freePreview: boolean;
    }>;
  }>;
  lectureCount: number;
  totalDurationSeconds: number;
}

/** A school by subdomain; 404 `not_found` naming the subdomain otherwise. */
export async function publicSchool(db: Db | Tx, subdomain: string): Promise<School> {
  const school = await findSchoolBySubdomain(db, subdomain.trim());
  if (!school) throw problems.notFound(`No school has the subdomain "${subdomain}".`);
  return school;
}

/** The public face of a school row. */
export function toPublicSchool(school: School): PublicSchool {
  return { name: school.name, subdomain: school.subdomain };
}

/** The public face of a course (call only for published ones). */
export function toPublicCourse(course: Course): PublicCourse {
  return {
    slug: course.slug,
    title: course.title,
    description: course.description,
    priceAmount: course.priceAmount,
    currency: course.currency,
    free: course.priceAmount === 0,
    imageUrl: course.imageUrl,
    publishedAt: course.publishedAt,
    lecturers: course.lecturers.map((l) => l.name),
  };
}

/** Published courses of the school matching `query` (title, slug or description), a page at a time. */
export async function searchPublicCourses(
  db: Db | Tx,
  schoolId: string,
  query: string | undefined,
  page: PageParams = {},
): Promise<{ courses: PublicCourse[]; nextCursor: string | null }> {
  const found = await searchCatalogue(db, schoolId, query, page);
  return { courses: found.data.map(toPublicCourse), nextCursor: found.next_cursor };
}

/** The outline of a published course by slug; drafts and archived courses are not found. */
export async function publicCourseOutline(
  db: Db | Tx,
  schoolId: string,
  slug: string,
): Promise<PublicOutline> {
  const course = await findCourseBySlug(db, schoolId, slug.trim().toLowerCase());
  if (course?.status !== 'published') {
    throw problems.notFound(`No published course has the slug "${slug}".`);
  }
  const sections = (await getCurriculum(db, schoolId, course.id)).map((s) => ({
    title: s.title,
    lectures: s.lectures.map((l) => ({
      id: l.id,
      title: l.title,
      type: l.type,
      durationSeconds: l.durationSeconds,
      freePreview: l.isFreePreview,
    })),
  }));
  const lectures = sections.flatMap((s) => s.lectures);
  return {
    course: toPublicCourse(course),
    sections,
    lectureCount: lectures.length,
    totalDurationSeconds: lectures.reduce((sum, l) => sum + l.durationSeconds, 0),
  };
}

/** A public event as anyone may see it. */
export interface PublicEvent {
  id: string;
  title: string;
  description: string;
  startsAt: string;
  endsAt: string;
  capacity: number | null;
  spotsLeft: number | null;
  online: boolean;
  location: string | null;
}

/** Scheduled public events of the school that have not ended, soonest first. */
export async function upcomingPublicEvents(
  db: Db | Tx,
  schoolId: string,
  page: PageParams = {},
): Promise<{ events: PublicEvent[]; nextCursor: string | null }> {
  const found = await listUpcomingPublicEvents(db, schoolId, page);
  return {
    // The online URL is for registered people; the public learns only that it is online.
    events: found.data.map((e) => ({
      id: e.id,
      title: e.title,
      description: e.description,
      startsAt: e.startsAt,
      endsAt: e.endsAt,
      capacity: e.capacity,
      spotsLeft: e.spotsLeft,
      online: e.onlineUrl !== null,
      location: e.location,
    })),
    nextCursor: found.next_cursor,
  };
}
