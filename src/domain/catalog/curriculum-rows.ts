import { z } from 'zod';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { flag, lockRow } from '../kernel/checks.ts';
import { declare } from '../kernel/field-meta.ts';
import { HttpUrl, Id, Text } from '../kernel/fields.ts';
import type { LecturesTable, SectionsTable } from '../kernel/tables.ts';

/*
 * The curriculum's shapes (sections holding ordered lectures), their row mappers, and the
 * lookups and position rules every curriculum change shares. The changes themselves live in
 * curriculum.ts.
 */

export const LECTURE_TYPES = ['video', 'text', 'quiz', 'file'] as const;
type LectureType = (typeof LECTURE_TYPES)[number];

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

/** A 1-based place among a course's sections or a section's lectures. */
const Position = z
  .number()
  .int()
  .min(1)
  .max(10_000)
  .describe('1-based; omitted appends, later items shift down.');

/** A section's fields as a client writes them. */
const SectionFields = z.object({ title: Text(200), position: Position });
export const SectionCreate = SectionFields.partial({ position: true });
export const SectionPatch = SectionFields.pick({ title: true }).partial();

/** A lecture's fields as a client writes them: each rule once (the admin API derives its bodies). */
const LectureFields = z.object({
  title: Text(200),
  type: z.enum(LECTURE_TYPES),
  durationSeconds: z.number().int().min(0).max(1_000_000),
  isFreePreview: z.boolean(),
  body: declare(z.string().max(200_000), { kind: 'long_text' }).nullable(),
  videoUrl: HttpUrl.nullable(),
  fileId: Id.nullable().describe('A file of the school’s store.'),
  position: Position,
});

/** A new lecture: title and type; it appends unless `position` says otherwise. */
export const LectureCreate = LectureFields.partial({
  durationSeconds: true,
  isFreePreview: true,
  body: true,
  videoUrl: true,
  fileId: true,
  position: true,
});
export type LectureInput = z.input<typeof LectureCreate>;

/** A change to a lecture's fields (its place changes by reorder or move). */
export const LecturePatch = LectureFields.omit({ position: true }).partial();
export type LecturePatchInput = z.input<typeof LecturePatch>;

export function toLecture(r: LecturesTable): Lecture {
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

export function toSection(r: SectionsTable, lectures: Lecture[]): Section {
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

export async function requireCourse(db: Db | Tx, schoolId: string, courseId: string): Promise<void> {
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
export async function lockCourse(tx: Tx, schoolId: string, courseId: string): Promise<void> {
  if (!(await lockRow(tx, 'courses', schoolId, { id: courseId }))) throw problems.notFound('No such course.');
}

export async function sectionRow(db: Db | Tx, schoolId: string, id: string): Promise<SectionsTable> {
  const row = await db
    .selectFrom('sections')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such section.');
  return row;
}

export function checkPermutation(
  field: string,
  current: readonly string[],
  proposed: readonly string[],
): void {
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

export const sectionIds = (db: Db | Tx, courseId: string) => childIds(db, 'sections', courseId);
export const lectureIds = (db: Db | Tx, sectionId: string) => childIds(db, 'lectures', sectionId);

// Positions are rewritten 1..n after every change so they never collide or leave gaps.
export async function renumber(
  db: Db | Tx,
  table: 'sections' | 'lectures',
  ids: readonly string[],
): Promise<void> {
  for (const [i, id] of ids.entries()) {
    await db
      .updateTable(table)
      .set({ position: i + 1 })
      .where('id', '=', id)
      .execute();
  }
}
