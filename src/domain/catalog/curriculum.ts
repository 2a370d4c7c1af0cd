import type { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { parseValid, withTransaction } from '../kernel/checks.ts';
import { recomputeCourseProgress } from '../learning/lecture-progress.ts';
import { may } from '../school/standing.ts';
import { requireSchoolFile } from '../school/storage.ts';
import {
  checkPermutation,
  type Lecture,
  LectureCreate,
  type LectureInput,
  LecturePatch,
  type LecturePatchInput,
  lectureIds,
  lockCourse,
  renumber,
  requireCourse,
  type Section,
  SectionCreate,
  SectionPatch,
  sectionIds,
  sectionRow,
  toLecture,
  toSection,
} from './curriculum-rows.ts';

/** Who saves a lecture: their user and roles at the school (an operation's caller). */
export interface LectureEditor {
  readonly userId: string;
  readonly roles: readonly string[];
}

/**
 * A lecture references only a file whoever saves it may read, so a lecture (and its free
 * preview, and the learning area's download) never hands out a file its editor could not:
 * the school's owners and admins any file of the school; a lecturer the files they uploaded and
 * those already on a lecture of a course they teach (never another course's paid files). Without
 * an editor (the system's own writes), any file of the school. 422 naming `field` otherwise.
 */
async function checkLectureFile(
  db: Db | Tx,
  schoolId: string,
  fileId: string,
  editor: LectureEditor | undefined,
  field = 'body.file_id',
): Promise<void> {
  if (!editor || may(editor.roles, 'act_as_operator')) {
    await requireSchoolFile(db, schoolId, fileId, field);
    return;
  }
  const found = await db
    .selectFrom('stored_files as f')
    .select('f.id')
    .where('f.school_id', '=', schoolId)
    .where('f.id', '=', fileId)
    .where((eb) =>
      eb.or([
        eb('f.uploaded_by', '=', editor.userId),
        eb.exists(
          eb
            .selectFrom('lectures as l')
            .innerJoin('course_lecturers as cl', 'cl.course_id', 'l.course_id')
            .innerJoin('lecturers as lr', 'lr.id', 'cl.lecturer_id')
            .select('l.id')
            .whereRef('l.file_id', '=', 'f.id')
            .where('l.school_id', '=', schoolId)
            .where('lr.user_id', '=', editor.userId),
        ),
      ]),
    )
    .executeTakeFirst();
  if (!found) {
    throw problems.validation([
      { field, message: 'not a file you uploaded or one on a lecture of a course you teach' },
    ]);
  }
}

/** Marks who uploaded a file of the school: the files a lecturer may put on lectures. */
export async function noteFileUploader(
  db: Db | Tx,
  schoolId: string,
  fileId: string,
  userId: string,
): Promise<void> {
  await db
    .updateTable('stored_files')
    .set({ uploaded_by: userId })
    .where('school_id', '=', schoolId)
    .where('id', '=', fileId)
    .execute();
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
  input: z.input<typeof SectionCreate>,
): Promise<Section> {
  const { title, position: at } = parseValid(SectionCreate, input);
  return withTransaction(db, async (tx) => {
    await lockCourse(tx, schoolId, courseId);
    const ids = await sectionIds(tx, courseId);
    const position = Math.min(at ?? ids.length + 1, ids.length + 1);
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
  patch: z.input<typeof SectionPatch>,
): Promise<Section> {
  const { title } = parseValid(SectionPatch, patch);
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
  editor?: LectureEditor,
): Promise<Lecture> {
  const { position: at, ...values } = parseValid(LectureCreate, input);
  if (values.fileId) await checkLectureFile(db, schoolId, values.fileId, editor);
  return withTransaction(db, async (tx) => {
    const section = await sectionRow(tx, schoolId, sectionId);
    await lockCourse(tx, schoolId, section.course_id);
    const ids = await lectureIds(tx, sectionId);
    const position = Math.min(at ?? ids.length + 1, ids.length + 1);
    const now = isoNow();
    const id = newId('lec');
    await tx
      .insertInto('lectures')
      .values({
        id,
        school_id: schoolId,
        course_id: section.course_id,
        section_id: sectionId,
        title: values.title,
        type: values.type,
        duration_seconds: values.durationSeconds ?? 0,
        is_free_preview: values.isFreePreview ? 1 : 0,
        position,
        body: values.body ?? null,
        video_url: values.videoUrl ?? null,
        file_id: values.fileId ?? null,
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
  input: LecturePatchInput,
  editor?: LectureEditor,
): Promise<Lecture> {
  const patch = parseValid(LecturePatch, input);
  await getLecture(db, schoolId, id);
  if (patch.fileId) await checkLectureFile(db, schoolId, patch.fileId, editor);
  await db
    .updateTable('lectures')
    .set({
      title: patch.title,
      type: patch.type,
      duration_seconds: patch.durationSeconds,
      is_free_preview: patch.isFreePreview === undefined ? undefined : patch.isFreePreview ? 1 : 0,
      body: patch.body,
      video_url: patch.videoUrl,
      file_id: patch.fileId,
      updated_at: isoNow(),
    })
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
  parseValid(LectureCreate.pick({ position: true }), to);
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
