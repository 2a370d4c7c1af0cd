import { type ExpressionBuilder, sql } from 'kysely';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import type { Database } from '../../store/schema.ts';
import { isoNow } from '../../store/time.ts';
import { listUpcomingPublicEvents } from '../community/events.ts';
import { likePattern } from '../community/posts.ts';
import { type PageParams, paginate } from '../kernel/pagination.ts';
import { decideLectureAccess, lectureContent, type QuizShape } from '../learning/lecture-access.ts';
import { type Appearance, getAppearance } from '../school/appearance.ts';
import { findSchoolBySubdomain, type School } from '../school/schools.ts';
import { type Course, findCourse, findCourseBySlug, searchCatalogue } from './courses.ts';
import { getCurriculum } from './curriculum.ts';

/**
 * What anyone may read about a school without signing in: published courses, their outlines
 * (titles, durations, free previews — never lecture bodies, video or file links, except the
 * content of a free-preview lecture) and upcoming public events, and for the school's site its
 * theme (its published pages, posts and forms: public-site-content.ts). The anonymous MCP tools
 * and the school's site (web/site/) read through here and nowhere else.
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

/** A school with a public catalogue, and how much of it there is. */
export interface PublicSchoolEntry extends PublicSchool {
  publishedCourses: number;
  upcomingEvents: number;
}

/**
 * What makes a school's catalogue public: at least one published course, or one scheduled public
 * event that has not ended (what list_upcoming_events shows). A school with neither is never
 * listed, so the listing reveals nothing the other anonymous tools would not.
 */
function publicParts(eb: ExpressionBuilder<Database, 'schools'>, now: string) {
  const courses = eb
    .selectFrom('courses')
    .whereRef('courses.school_id', '=', 'schools.id')
    .where('courses.status', '=', 'published');
  const events = eb
    .selectFrom('events')
    .whereRef('events.school_id', '=', 'schools.id')
    .where('events.status', '=', 'scheduled')
    .where('events.visibility', '=', 'public')
    .where('events.ends_at', '>', now);
  return { courses, events };
}

/** Schools with a public catalogue by name (or subdomain) text, in name order, a page at a time. */
export async function listPublicSchools(
  db: Db | Tx,
  query: string | undefined,
  page: PageParams = {},
): Promise<{ schools: PublicSchoolEntry[]; nextCursor: string | null }> {
  const now = isoNow();
  let q = db
    .selectFrom('schools')
    .select(['schools.id', 'schools.name', 'schools.subdomain'])
    .select((eb) => {
      const { courses, events } = publicParts(eb, now);
      return [
        courses.select(sql<number>`count(*)`.as('n')).as('published_courses'),
        events.select(sql<number>`count(*)`.as('n')).as('upcoming_events'),
      ];
    })
    .where((eb) => {
      const { courses, events } = publicParts(eb, now);
      return eb.or([eb.exists(courses.select('courses.id')), eb.exists(events.select('events.id'))]);
    });
  if (query?.trim()) {
    const like = likePattern(query);
    q = q.where((eb) =>
      eb.or([
        eb(sql`lower(schools.name)`, 'like', sql`${like} escape '\\'`),
        eb(sql`lower(schools.subdomain)`, 'like', sql`${like} escape '\\'`),
      ]),
    );
  }
  const found = await paginate(q, page, { table: 'schools', sortColumn: 'name' });
  return {
    schools: found.data.map((row) => ({
      subdomain: row.subdomain,
      name: row.name,
      // PostgreSQL counts are bigint, read back as text.
      publishedCourses: Number(row.published_courses ?? 0),
      upcomingEvents: Number(row.upcoming_events ?? 0),
    })),
    nextCursor: found.next_cursor,
  };
}

/** The public face of a school row. */
export function toPublicSchool(school: School): PublicSchool {
  return { name: school.name, subdomain: school.subdomain };
}

/** The public face of a course (call only for published ones). */
function toPublicCourse(course: Course): PublicCourse {
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

/** A school's site as visitors see it: how it formats amounts and dates, its theme, sign-up. */
export interface PublicSite extends PublicSchool {
  /** For the reads that follow (never shown). */
  id: string;
  locale: string;
  timezone: string;
  currency: string;
  signupOpen: boolean;
  appearance: Pick<Appearance, 'primaryColor' | 'accentColor' | 'font' | 'logoFileId'>;
}

/** The site of the school with this subdomain; 404 `not_found` otherwise. */
export async function publicSite(db: Db | Tx, subdomain: string): Promise<PublicSite> {
  const school = await publicSchool(db, subdomain);
  const { primaryColor, accentColor, font, logoFileId } = await getAppearance(db, school.id);
  return {
    id: school.id,
    name: school.name,
    subdomain: school.subdomain,
    locale: school.locale,
    timezone: school.timezone,
    currency: school.currency,
    signupOpen: school.signup_open !== 0,
    appearance: { primaryColor, accentColor, font, logoFileId },
  };
}

/** A published course as the site sells it: the public face, its checkout link and its id. */
export interface PublicOffer extends PublicOutline {
  /** For enrolment and the learner's own state (never shown). */
  courseId: string;
  checkoutUrl: string | null;
}

/** The outline and offer of a published course by slug; drafts and archived courses are not found. */
export async function publicCourseOffer(db: Db | Tx, schoolId: string, slug: string): Promise<PublicOffer> {
  const outline = await publicCourseOutline(db, schoolId, slug);
  const course = (await findCourseBySlug(db, schoolId, outline.course.slug))!;
  return { ...outline, courseId: course.id, checkoutUrl: course.checkoutUrl };
}

/** The published courses among `ids`, in that order (a page's course list block). */
export async function publicCoursesByIds(
  db: Db | Tx,
  schoolId: string,
  ids: readonly string[],
): Promise<PublicCourse[]> {
  // At most 50 ids (the block's rule); another school's id or a draft is simply left out.
  const courses = await Promise.all([...new Set(ids)].slice(0, 50).map((id) => findCourse(db, schoolId, id)));
  return courses.flatMap((c) => (c?.status === 'published' ? [toPublicCourse(c)] : []));
}

/** A free-preview lecture of a published course, with its content: what anyone may watch or read. */
export interface PublicPreview {
  course: PublicCourse;
  lecture: {
    id: string;
    title: string;
    type: string;
    durationSeconds: number;
    /** Text; null for a quiz, whose Markdown marks the right choices. */
    body: string | null;
    videoUrl: string | null;
    /** A quiz's questions and choices, without the key. */
    quiz: QuizShape | null;
  };
}

/** A free-preview lecture of a published course; any other lecture is not found. */
export async function publicLecturePreview(
  db: Db | Tx,
  schoolId: string,
  slug: string,
  lectureId: string,
): Promise<PublicPreview> {
  const course = await findCourseBySlug(db, schoolId, slug.trim().toLowerCase());
  if (course?.status !== 'published') throw problems.notFound('No such free preview.');
  const lecture = (await getCurriculum(db, schoolId, course.id))
    .flatMap((s) => s.lectures)
    .find((l) => l.id === lectureId);
  // The one lecture-access rule, for a visitor: a free preview of a published course.
  const access = lecture && decideLectureAccess({ course, lecture, staff: false });
  if (!lecture || !access?.ok) throw problems.notFound('No such free preview.');
  return {
    course: toPublicCourse(course),
    lecture: {
      id: lecture.id,
      title: lecture.title,
      type: lecture.type,
      durationSeconds: lecture.durationSeconds,
      ...lectureContent(lecture, access),
    },
  };
}
