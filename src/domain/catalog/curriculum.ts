import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { Checks, flag, lockRow, withTransaction } from '../kernel/checks.ts';
import type { LecturesTable, SectionsTable } from '../kernel/tables.ts';
import { recomputeCourseProgress } from '../learning/lecture-progress.ts';

export const LECTURE_TYPES = ['video', 'text', 'quiz', 'file'] as const;
export type LectureType = (typeof LECTURE_TYPES)[number];

/** A lecture; positions are 1-based within its section. */
export interface Lecture {
  id: string;
  courseId: string;
  sectionId: string;
  title: string;
  type: LectureType;
  durationSeconds: number;
  isFreePreview: boolean;
  position: number;
  body: string | null;
  videoUrl: string | null;
  fileId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A section with its lectures in order; positions are 1-based within the course. */
export interface Section {
  id: string;
  courseId: string;
  title: string;
  position: number;
  lectures: Lecture[];
  createdAt: string;
  updatedAt: string;
}

export interface LectureInput {
  title: string;
  type: LectureType;
  durationSeconds?: number;
  isFreePreview?: boolean;
  body?: string | null;
  videoUrl?: string | null;
  fileId?: string | null;
  /** 1-based; omitted appends. Later lectures shift down. */
  position?: number;
}

function toLecture(r: LecturesTable): Lecture {
  return {
    id: r.id,
    courseId: r.course_id,
    sectionId: r.section_id,
    title: r.title,
    type: r.type,
    durationSeconds: r.duration_seconds,
    isFreePreview: flag(r.is_free_preview),
    position: r.position,
    body: r.body,
    videoUrl: r.video_url,
    fileId: r.file_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toSection(r: SectionsTable, lectures: Lecture[]): Section {
  return {
    id: r.id,
    courseId: r.course_id,
    title: r.title,
    position: r.position,
    lectures,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

async function requireCourse(db: Db | Tx, schoolId: string, courseId: string): Promise<void> {
  const found = await db
    .selectFrom('courses')
    .select('id')
    .where('school_id', '=', schoolId)
    .where('id', '=', courseId)
    .executeTakeFirst();
  if (!found) throw problems.notFound('No such course.');
}

// Curriculum changes hold the course row first, so concurrent ones renumber in turn (no twins,
// gaps or deadlocks between two renumberings).
async function lockCourse(tx: Tx, schoolId: string, courseId: string): Promise<void> {
  if (!(await lockRow(tx, 'courses', schoolId, { id: courseId }))) throw problems.notFound('No such course.');
}

async function sectionRow(db: Db | Tx, schoolId: string, id: string): Promise<SectionsTable> {
  const row = await db
    .selectFrom('sections')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such section.');
  return row;
}

/** The course's sections with their lectures, in order. */
export async function getCurriculum(db: Db | Tx, schoolId: string, courseId: string): Promise<Section[]> {
  await requireCourse(db, schoolId, courseId);
  return (await loadCurricula(db, schoolId, [courseId])).get(courseId) ?? [];
}

/**
 * The curricula (sections with lectures, in order) of the school's courses of the given ids,
 * keyed by course id ([] for a course without sections): two queries for any number of courses.
 */
export async function loadCurricula(
  db: Db | Tx,
  schoolId: string,
  courseIds: readonly string[],
): Promise<Map<string, Section[]>> {
  const out = new Map<string, Section[]>(courseIds.map((id) => [id, []]));
  if (courseIds.length === 0) return out;
  const sections = await db
    .selectFrom('sections')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('course_id', 'in', [...courseIds])
    .orderBy('position')
    .orderBy('id')
    .execute();
  const lectures = await db
    .selectFrom('lectures')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('course_id', 'in', [...courseIds])
    .orderBy('position')
    .orderBy('id')
    .execute();
  const bySection = Map.groupBy(lectures, (l) => l.section_id);
  for (const s of sections)
    out.get(s.course_id)?.push(toSection(s, (bySection.get(s.id) ?? []).map(toLecture)));
  return out;
}

/** One section with its lectures; 404 if it is not the school's. */
export async function getSection(db: Db | Tx, schoolId: string, id: string): Promise<Section> {
  const row = await sectionRow(db, schoolId, id);
  const lectures = await db
    .selectFrom('lectures')
    .selectAll()
    .where('section_id', '=', id)
    .orderBy('position')
    .orderBy('id')
    .execute();
  return toSection(row, lectures.map(toLecture));
}

/** Adds a section at `position` (1-based; default last), shifting later ones. */
export async function createSection(
  db: Db | Tx,
  schoolId: string,
  courseId: string,
  input: { title: string; position?: number },
): Promise<Section> {
  const c = new Checks();
  const title = c.text('title', input.title);
  if (input.position !== undefined) c.int('position', input.position, 1, 10_000);
  c.done();
  return withTransaction(db, async (tx) => {
    await lockCourse(tx, schoolId, courseId);
    const ids = await sectionIds(tx, courseId);
    const position = Math.min(input.position ?? ids.length + 1, ids.length + 1);
    const now = isoNow();
    const id = newId('sec');
    await tx
      .insertInto('sections')
      .values({
        id,
        school_id: schoolId,
        course_id: courseId,
        title,
        position,
        created_at: now,
        updated_at: now,
      })
      .execute();
    ids.splice(position - 1, 0, id);
    await renumber(tx, 'sections', ids);
    return getSection(tx, schoolId, id);
  });
}

/** Renames a section. */
export async function updateSection(
  db: Db | Tx,
  schoolId: string,
  id: string,
  patch: { title?: string },
): Promise<Section> {
  const c = new Checks();
  const title = patch.title === undefined ? undefined : c.text('title', patch.title);
  c.done();
  await sectionRow(db, schoolId, id);
  if (title !== undefined) {
    await db.updateTable('sections').set({ title, updated_at: isoNow() }).where('id', '=', id).execute();
  }
  return getSection(db, schoolId, id);
}

/** Deletes a section and its lectures, closing the gap in positions. */
export async function deleteSection(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await withTransaction(db, async (tx) => {
    const row = await sectionRow(tx, schoolId, id);
    await lockCourse(tx, schoolId, row.course_id);
    await tx.deleteFrom('sections').where('id', '=', id).execute();
    await renumber(tx, 'sections', await sectionIds(tx, row.course_id));
    await recomputeCourseProgress(tx, schoolId, row.course_id);
  });
}

/** Puts the course's sections in the given order: exactly its section ids, each once. */
export async function reorderSections(
  db: Db | Tx,
  schoolId: string,
  courseId: string,
  orderedIds: readonly string[],
): Promise<Section[]> {
  return withTransaction(db, async (tx) => {
    await lockCourse(tx, schoolId, courseId);
    checkPermutation('sectionIds', await sectionIds(tx, courseId), orderedIds);
    await renumber(tx, 'sections', orderedIds);
    return getCurriculum(tx, schoolId, courseId);
  });
}

/** Adds a lecture to a section. */
export async function createLecture(
  db: Db | Tx,
  schoolId: string,
  sectionId: string,
  input: LectureInput,
): Promise<Lecture> {
  const values = checkLecture(input, true);
  if (input.position !== undefined) {
    const c = new Checks();
    c.int('position', input.position, 1, 10_000);
    c.done();
  }
  return withTransaction(db, async (tx) => {
    const section = await sectionRow(tx, schoolId, sectionId);
    await lockCourse(tx, schoolId, section.course_id);
    const ids = await lectureIds(tx, sectionId);
    const position = Math.min(input.position ?? ids.length + 1, ids.length + 1);
    const now = isoNow();
    const id = newId('lec');
    await tx
      .insertInto('lectures')
      .values({
        id,
        school_id: schoolId,
        course_id: section.course_id,
        section_id: sectionId,
        title: values.title!,
        type: values.type!,
        duration_seconds: values.duration_seconds ?? 0,
        is_free_preview: values.is_free_preview ?? 0,
        position,
        body: values.body ?? null,
        video_url: values.video_url ?? null,
        file_id: values.file_id ?? null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    ids.splice(position - 1, 0, id);
    await renumber(tx, 'lectures', ids);
    // A new lecture lowers everyone's completion share.
    await recomputeCourseProgress(tx, schoolId, section.course_id);
    return getLecture(tx, schoolId, id);
  });
}

/** A lecture of the school; 404 otherwise. */
export async function getLecture(db: Db | Tx, schoolId: string, id: string): Promise<Lecture> {
  const row = await db
    .selectFrom('lectures')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such lecture.');
  return toLecture(row);
}

/** Changes a lecture's fields (not its place: see reorderLectures). */
export async function updateLecture(
  db: Db | Tx,
  schoolId: string,
  id: string,
  patch: Partial<Omit<LectureInput, 'position'>>,
): Promise<Lecture> {
  const set = checkLecture(patch, false);
  await getLecture(db, schoolId, id);
  await db
    .updateTable('lectures')
    .set({ ...set, updated_at: isoNow() })
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .execute();
  return getLecture(db, schoolId, id);
}

/** Deletes a lecture, closing the gap and recomputing enrolled students' progress. */
export async function deleteLecture(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await withTransaction(db, async (tx) => {
    const lecture = await getLecture(tx, schoolId, id);
    await lockCourse(tx, schoolId, lecture.courseId);
    await tx.deleteFrom('lectures').where('id', '=', id).execute();
    await renumber(tx, 'lectures', await lectureIds(tx, lecture.sectionId));
    await recomputeCourseProgress(tx, schoolId, lecture.courseId);
  });
}

/** Puts a section's lectures in the given order: exactly its lecture ids, each once. */
export async function reorderLectures(
  db: Db | Tx,
  schoolId: string,
  sectionId: string,
  orderedIds: readonly string[],
): Promise<Section> {
  return withTransaction(db, async (tx) => {
    await lockCourse(tx, schoolId, (await sectionRow(tx, schoolId, sectionId)).course_id);
    checkPermutation('lectureIds', await lectureIds(tx, sectionId), orderedIds);
    await renumber(tx, 'lectures', orderedIds);
    return getSection(tx, schoolId, sectionId);
  });
}

/** Moves a lecture to a section of the same course at a 1-based position (default last). */
export async function moveLecture(
  db: Db | Tx,
  schoolId: string,
  id: string,
  to: { sectionId: string; position?: number },
): Promise<Lecture> {
  const c = new Checks();
  if (to.position !== undefined) c.int('position', to.position, 1, 10_000);
  c.done();
  return withTransaction(db, async (tx) => {
    const lecture = await getLecture(tx, schoolId, id);
    await lockCourse(tx, schoolId, lecture.courseId);
    const target = await sectionRow(tx, schoolId, to.sectionId);
    if (target.course_id !== lecture.courseId) {
      throw problems.validation([{ field: 'sectionId', message: 'must be a section of the same course' }]);
    }
    const ids = (await lectureIds(tx, target.id)).filter((l) => l !== id);
    ids.splice(Math.min((to.position ?? ids.length + 1) - 1, ids.length), 0, id);
    await tx
      .updateTable('lectures')
      .set({ section_id: target.id, updated_at: isoNow() })
      .where('id', '=', id)
      .execute();
    await renumber(tx, 'lectures', ids);
    if (target.id !== lecture.sectionId)
      await renumber(tx, 'lectures', await lectureIds(tx, lecture.sectionId));
    return getLecture(tx, schoolId, id);
  });
}

function checkLecture(input: Partial<LectureInput>, creating: boolean): Partial<LecturesTable> {
  const c = new Checks();
  const set: Partial<LecturesTable> = {};
  if (creating || input.title !== undefined) set.title = c.text('title', input.title);
  if (creating || input.type !== undefined) set.type = c.oneOf('type', input.type, LECTURE_TYPES);
  if (input.durationSeconds !== undefined)
    set.duration_seconds = c.int('durationSeconds', input.durationSeconds, 0, 1_000_000);
  if (input.isFreePreview !== undefined) {
    if (typeof input.isFreePreview !== 'boolean') c.fail('isFreePreview', 'must be a boolean');
    set.is_free_preview = input.isFreePreview ? 1 : 0;
  }
  if (input.body !== undefined) set.body = c.optionalText('body', input.body, 200_000);
  if (input.videoUrl !== undefined) set.video_url = c.url('videoUrl', input.videoUrl);
  if (input.fileId !== undefined) set.file_id = c.optionalText('fileId', input.fileId, 100);
  c.done();
  return set;
}

function checkPermutation(field: string, current: readonly string[], proposed: readonly string[]): void {
  const same =
    current.length === proposed.length &&
    new Set(proposed).size === proposed.length &&
    proposed.every((id) => current.includes(id));
  if (!same) throw problems.validation([{ field, message: 'must list every id of the parent exactly once' }]);
}

// Children in their current order: a course's sections, or a section's lectures.
async function childIds(db: Db | Tx, table: 'sections' | 'lectures', parentId: string): Promise<string[]> {
  const parent = table === 'sections' ? 'course_id' : 'section_id';
  const rows = await db
    .selectFrom(table)
    .select('id')
    .where(parent, '=', parentId)
    .orderBy('position')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

const sectionIds = (db: Db | Tx, courseId: string) => childIds(db, 'sections', courseId);
const lectureIds = (db: Db | Tx, sectionId: string) => childIds(db, 'lectures', sectionId);

// Positions are rewritten 1..n after every change so they never collide or leave gaps.
async function renumber(db: Db | Tx, table: 'sections' | 'lectures', ids: readonly string[]): Promise<void> {
  for (const [i, id] of ids.entries()) {
    await db
      .updateTable(table)
      .set({ position: i + 1 })
      .where('id', '=', id)
      .execute();
  }
}
