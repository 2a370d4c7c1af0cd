import { sql } from 'kysely';
import { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { columnsOf } from '../kernel/case.ts';
import {
  deleteOwned,
  isUniqueViolation,
  lockRow,
  parseValid,
  slugTaken,
  withTransaction,
} from '../kernel/checks.ts';
import { declare } from '../kernel/field-meta.ts';
import { Amount, Currency, HttpUrl, Id, Slug, Text } from '../kernel/fields.ts';
import { countRows, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import { insertUnderSlug, SlugOnCreate } from '../kernel/slugs.ts';
import type { CoursesTable } from '../kernel/tables.ts';

export const COURSE_STATUSES = ['draft', 'published', 'archived'] as const;
type CourseStatus = (typeof COURSE_STATUSES)[number];

/** A course as every surface sees it. Money: integer minor units beside its currency. */
export interface Course {
  id: string;
  schoolId: string;
  slug: string;
  title: string;
  description: string;
  status: CourseStatus;
  priceAmount: number;
  currency: string;
  imageUrl: string | null;
  /** Where the school's own payment provider sells a paid course; null while it is not on sale. */
  checkoutUrl: string | null;
  publishedAt: string | null;
  lecturers: Array<{ id: string; name: string }>;
  createdAt: string;
  updatedAt: string;
}

/** A course's fields as a client writes them: each rule once (the admin API derives its bodies). */
const CourseFields = z.object({
  title: Text(200),
  slug: Slug,
  description: declare(z.string().max(20_000), { kind: 'long_text' }),
  status: z.enum(COURSE_STATUSES),
  priceAmount: Amount,
  /** Defaults to the school's currency. */
  currency: Currency,
  imageUrl: HttpUrl.nullable(),
  checkoutUrl: HttpUrl.nullable().describe(
    'The page of the school’s own payment provider where this course is bought; the site’s “Buy” button links there.',
  ),
  lecturerIds: z.array(Id).max(20).describe('Lecturers of this school, in display order.'),
});

/**
 * A new course: its title; the rest defaults (the slug from the title, draft, free, the school's
 * currency).
 */
export const CourseCreate = CourseFields.extend({ slug: SlugOnCreate }).partial({
  description: true,
  status: true,
  priceAmount: true,
  currency: true,
  imageUrl: true,
  checkoutUrl: true,
  lecturerIds: true,
});
export type CourseInput = z.input<typeof CourseCreate>;

/** A change to a course: any of its fields. */
export const CoursePatch = CourseFields.partial();
export type CoursePatchInput = z.input<typeof CoursePatch>;

export interface CourseFilter {
  status?: CourseStatus;
  /** Case-insensitive match on title, slug or description. */
  search?: string;
  lecturerId?: string;
}

async function lecturersOf(db: Db | Tx, courseIds: string[]): Promise<Map<string, Course['lecturers']>> {
  const out = new Map<string, Course['lecturers']>();
  if (courseIds.length === 0) return out;
  const rows = await db
    .selectFrom('course_lecturers')
    .innerJoin('lecturers', 'lecturers.id', 'course_lecturers.lecturer_id')
    .select(['course_lecturers.course_id', 'lecturers.id', 'lecturers.name'])
    .where('course_lecturers.course_id', 'in', courseIds)
    .orderBy('course_lecturers.course_id')
    .orderBy('course_lecturers.position')
    .execute();
  for (const r of rows) {
    const list = out.get(r.course_id) ?? [];
    list.push({ id: r.id, name: r.name });
    out.set(r.course_id, list);
  }
  return out;
}

function toCourse(row: CoursesTable, lecturers: Course['lecturers'] = []): Course {
  return {
    id: row.id,
    schoolId: row.school_id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    status: row.status,
    priceAmount: row.price_amount,
    currency: row.currency,
    imageUrl: row.image_url,
    checkoutUrl: row.checkout_url,
    publishedAt: row.published_at,
    lecturers,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function withLecturers(db: Db | Tx, rows: CoursesTable[]): Promise<Course[]> {
  const map = await lecturersOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toCourse(r, map.get(r.id)));
}

async function checkLecturers(db: Db | Tx, schoolId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await db
    .selectFrom('lecturers')
    .select('id')
    .where('school_id', '=', schoolId)
    .where('id', 'in', [...ids])
    .execute();
  if (found.length !== new Set(ids).size) {
    throw problems.validation([
      { field: 'lecturerIds', message: 'every lecturer must exist at this school' },
    ]);
  }
}

async function writeLecturers(db: Db | Tx, courseId: string, ids: readonly string[]): Promise<void> {
  await db.deleteFrom('course_lecturers').where('course_id', '=', courseId).execute();
  const unique = [...new Set(ids)];
  if (unique.length > 0) {
    await db
      .insertInto('course_lecturers')
      .values(unique.map((lecturer_id, i) => ({ course_id: courseId, lecturer_id, position: i + 1 })))
      .execute();
  }
}

/**
 * Creates a course. Without a slug it gets one from its title, unique in the school; a slug the
 * client gives must be free (409 `slug_taken`).
 */
export async function createCourse(db: Db | Tx, schoolId: string, input: CourseInput): Promise<Course> {
  const {
    slug,
    title,
    description = '',
    status = 'draft',
    priceAmount = 0,
    ...v
  } = parseValid(CourseCreate, input);
  const lecturerIds = v.lecturerIds ?? [];
  return withTransaction(db, async (tx) => {
    const school = await tx
      .selectFrom('schools')
      .select('currency')
      .where('id', '=', schoolId)
      .executeTakeFirst();
    if (!school) throw problems.notFound('No such school.');
    await checkLecturers(tx, schoolId, lecturerIds);
    const now = isoNow();
    const row: CoursesTable = {
      id: newId('crs'),
      school_id: schoolId,
      slug: slug ?? '',
      title,
      description,
      status,
      price_amount: priceAmount,
      currency: v.currency ?? school.currency,
      image_url: v.imageUrl ?? null,
      checkout_url: v.checkoutUrl ?? null,
      published_at: status === 'published' ? now : null,
      created_at: now,
      updated_at: now,
    };
    const place = { table: 'courses', schoolId, noun: 'course', explicit: slug, title } as const;
    row.slug = await insertUnderSlug(tx, place, async (candidate) => {
      const result = await tx
        .insertInto('courses')
        .values({ ...row, slug: candidate })
        .onConflict((oc) => oc.columns(['school_id', 'slug']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    });
    await writeLecturers(tx, row.id, lecturerIds);
    await recordEvent(tx, schoolId, 'course.created', {
      ...courseData(row),
      title: row.title,
      price_amount: row.price_amount,
      currency: row.currency,
    });
    if (status === 'published') await recordEvent(tx, schoolId, 'course.published', courseData(row));
    return (await getCourse(tx, schoolId, row.id))!;
  });
}

/** A course of the school by id, or undefined (another school's id is simply not found). */
export async function findCourse(db: Db | Tx, schoolId: string, id: string): Promise<Course | undefined> {
  const row = await db
    .selectFrom('courses')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? (await withLecturers(db, [row]))[0] : undefined;
}

/** A course of the school by id; 404 `not_found` otherwise. */
export async function getCourse(db: Db | Tx, schoolId: string, id: string): Promise<Course> {
  const course = await findCourse(db, schoolId, id);
  if (!course) throw problems.notFound('No such course.');
  return course;
}

/** A course of the school by slug, or undefined. */
export async function findCourseBySlug(
  db: Db | Tx,
  schoolId: string,
  slug: string,
): Promise<Course | undefined> {
  const row = await db
    .selectFrom('courses')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row ? (await withLecturers(db, [row]))[0] : undefined;
}

function courseQuery(db: Db | Tx, schoolId: string, filter: CourseFilter) {
  let q = db.selectFrom('courses').selectAll('courses').where('courses.school_id', '=', schoolId);
  if (filter.status) q = q.where('courses.status', '=', filter.status);
  if (filter.search?.trim()) {
    const like = `%${filter.search
      .trim()
      .toLowerCase()
      .replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    q = q.where((eb) =>
      eb.or([
        eb(sql`lower(courses.title)`, 'like', sql`${like} escape '\\'`),
        eb(sql`lower(courses.slug)`, 'like', sql`${like} escape '\\'`),
        eb(sql`lower(courses.description)`, 'like', sql`${like} escape '\\'`),
      ]),
    );
  }
  if (filter.lecturerId) {
    const lecturerId = filter.lecturerId;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('course_lecturers')
          .select('course_lecturers.course_id')
          .whereRef('course_lecturers.course_id', '=', 'courses.id')
          .where('course_lecturers.lecturer_id', '=', lecturerId),
      ),
    );
  }
  return q;
}

/** Courses of the school, oldest first, filtered by status, text or lecturer. */
export async function listCourses(
  db: Db | Tx,
  schoolId: string,
  filter: CourseFilter = {},
  page: PageParams = {},
): Promise<Page<Course>> {
  const rows = await paginate(courseQuery(db, schoolId, filter), page, { table: 'courses' });
  return { data: await withLecturers(db, rows.data), next_cursor: rows.next_cursor };
}

/** How many courses match the filter (GraphQL totalCount). */
export function countCourses(db: Db | Tx, schoolId: string, filter: CourseFilter = {}): Promise<number> {
  return countRows(courseQuery(db, schoolId, filter));
}

/** Published courses matching a text query: the public catalogue (anonymous tools). */
export function searchCatalogue(
  db: Db | Tx,
  schoolId: string,
  query: string | undefined,
  page: PageParams = {},
): Promise<Page<Course>> {
  return listCourses(db, schoolId, { status: 'published', search: query }, page);
}

/** Changes a course; publishing the first time stamps publishedAt. */
export async function updateCourse(
  db: Db | Tx,
  schoolId: string,
  id: string,
  input: CoursePatchInput,
): Promise<Course> {
  const { lecturerIds, ...patch } = parseValid(CoursePatch, input);
  const set: Partial<CoursesTable> = columnsOf(patch);
  return withTransaction(db, async (tx) => {
    // Concurrent updates of one course queue here, so replacing its lecturers cannot collide.
    await lockRow(tx, 'courses', schoolId, { id });
    const current = await getCourse(tx, schoolId, id);
    if (set.slug && set.slug !== current.slug && (await findCourseBySlug(tx, schoolId, set.slug))) {
      throw slugTaken('course', set.slug);
    }
    if (set.status === 'published' && !current.publishedAt) set.published_at = isoNow();
    if (lecturerIds !== undefined) {
      await checkLecturers(tx, schoolId, lecturerIds);
      await writeLecturers(tx, id, lecturerIds);
    }
    try {
      await tx
        .updateTable('courses')
        .set({ ...set, updated_at: isoNow() })
        .where('school_id', '=', schoolId)
        .where('id', '=', id)
        .execute();
    } catch (err) {
      if (isUniqueViolation(err) && set.slug) throw slugTaken('course', set.slug);
      throw err;
    }
    const course = await getCourse(tx, schoolId, id);
    const publishing =
      course.status !== current.status && (course.status === 'published' || current.status === 'published');
    if (publishing) {
      const type = course.status === 'published' ? 'course.published' : 'course.unpublished';
      await recordEvent(tx, schoolId, type, courseData({ id, slug: course.slug, status: course.status }));
    }
    // A status change to or from published has its own event above; anything else is an update.
    const changed = changedFields(current, course).filter((f) => !(publishing && f === 'status'));
    if (changed.length > 0) {
      await recordEvent(tx, schoolId, 'course.updated', {
        ...courseData(course),
        title: course.title,
        price_amount: course.priceAmount,
        currency: course.currency,
        changed,
        previous_slug: current.slug,
        previous_title: current.title,
        previous_status: current.status,
        previous_price_amount: current.priceAmount,
        previous_currency: current.currency,
      });
    }
    return course;
  });
}

/** Deletes a course with its curriculum and enrollments; 404 if it is not the school's. */
export async function deleteCourse(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await deleteOwned(db, 'courses', schoolId, id, 'course');
}

/** The fields that differ between two states of a course, by their API names. */
function changedFields(before: Course, after: Course): string[] {
  const fields: Array<[string, unknown, unknown]> = [
    ['slug', before.slug, after.slug],
    ['title', before.title, after.title],
    ['description', before.description, after.description],
    ['status', before.status, after.status],
    ['price_amount', before.priceAmount, after.priceAmount],
    ['currency', before.currency, after.currency],
    ['image_url', before.imageUrl, after.imageUrl],
    ['checkout_url', before.checkoutUrl, after.checkoutUrl],
    ['lecturer_ids', before.lecturers.map((l) => l.id).join(), after.lecturers.map((l) => l.id).join()],
  ];
  return fields.filter(([, b, a]) => b !== a).map(([name]) => name);
}

function courseData(course: { id: string; slug: string; status: string }) {
  return { course_id: course.id, slug: course.slug, status: course.status };
}
