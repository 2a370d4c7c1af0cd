import { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { problem, problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { columnsOf } from '../kernel/case.ts';
import { deleteOwned, lockRow, parseValid, withTransaction } from '../kernel/checks.ts';
import { declare } from '../kernel/field-meta.ts';
import { HttpUrl, Id, Text } from '../kernel/fields.ts';
import { countRows, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { LecturersTable } from '../kernel/tables.ts';

/** A lecturer's public profile at a school, optionally linked to a user account. */
export interface Lecturer {
  id: string;
  schoolId: string;
  userId: string | null;
  name: string;
  headline: string | null;
  bio: string | null;
  avatarUrl: string | null;
  courses: Array<{ id: string; title: string; slug: string; status: string }>;
  createdAt: string;
  updatedAt: string;
}

/** A lecturer's fields as a client writes them: each rule once (the admin API derives its bodies). */
const LecturerFields = z.object({
  name: Text(200),
  userId: Id.nullable().describe('A member of the school; one profile per member.'),
  headline: z.string().max(200).nullable(),
  bio: declare(z.string().max(20_000), { kind: 'long_text' }).nullable(),
  avatarUrl: HttpUrl.nullable(),
});

/** A new profile: a name; the rest may follow. */
export const LecturerCreate = LecturerFields.partial({
  userId: true,
  headline: true,
  bio: true,
  avatarUrl: true,
});
export type LecturerInput = z.input<typeof LecturerCreate>;

/** A change to a profile: any of its fields. */
export const LecturerPatch = LecturerFields.partial();

async function coursesOf(db: Db | Tx, ids: string[]): Promise<Map<string, Lecturer['courses']>> {
  const out = new Map<string, Lecturer['courses']>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('course_lecturers')
    .innerJoin('courses', 'courses.id', 'course_lecturers.course_id')
    .select(['course_lecturers.lecturer_id', 'courses.id', 'courses.title', 'courses.slug', 'courses.status'])
    .where('course_lecturers.lecturer_id', 'in', ids)
    .orderBy('courses.id')
    .execute();
  for (const r of rows) {
    const list = out.get(r.lecturer_id) ?? [];
    list.push({ id: r.id, title: r.title, slug: r.slug, status: r.status });
    out.set(r.lecturer_id, list);
  }
  return out;
}

async function hydrate(db: Db | Tx, rows: LecturersTable[]): Promise<Lecturer[]> {
  const courses = await coursesOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    schoolId: r.school_id,
    userId: r.user_id,
    name: r.name,
    headline: r.headline,
    bio: r.bio,
    avatarUrl: r.avatar_url,
    courses: courses.get(r.id) ?? [],
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
}

// A linked user must belong to the school and have no other profile there. Holding their
// membership row makes concurrent requests linking the same person check one after the other.
async function checkUser(tx: Tx, schoolId: string, userId: string, selfId?: string): Promise<void> {
  if (!(await lockRow(tx, 'memberships', schoolId, { user_id: userId }))) {
    throw problems.validation([{ field: 'userId', message: 'must be a member of this school' }]);
  }
  const existing = await findLecturerByUser(tx, schoolId, userId);
  if (existing && existing.id !== selfId) {
    throw problem('lecturer_exists', {
      detail: 'This user already has a lecturer profile at this school.',
    });
  }
}

/** Creates a lecturer profile, linked to a member's account if userId is given. */
export async function createLecturer(db: Db | Tx, schoolId: string, input: LecturerInput): Promise<Lecturer> {
  const v = parseValid(LecturerCreate, input);
  return withTransaction(db, async (tx) => {
    if (v.userId) await checkUser(tx, schoolId, v.userId);
    const now = isoNow();
    const row: LecturersTable = {
      id: newId('lct'),
      school_id: schoolId,
      user_id: v.userId ?? null,
      name: v.name,
      headline: v.headline ?? null,
      bio: v.bio ?? null,
      avatar_url: v.avatarUrl ?? null,
      created_at: now,
      updated_at: now,
    };
    await tx.insertInto('lecturers').values(row).execute();
    return (await hydrate(tx, [row]))[0];
  });
}

/** A lecturer of the school; 404 otherwise. */
export async function getLecturer(db: Db | Tx, schoolId: string, id: string): Promise<Lecturer> {
  const row = await db
    .selectFrom('lecturers')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such lecturer.');
  return (await hydrate(db, [row]))[0];
}

/** The lecturer profile of a user at the school, or undefined. */
export async function findLecturerByUser(
  db: Db | Tx,
  schoolId: string,
  userId: string,
): Promise<Lecturer | undefined> {
  const row = await db
    .selectFrom('lecturers')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row ? (await hydrate(db, [row]))[0] : undefined;
}

function lecturerQuery(db: Db | Tx, schoolId: string) {
  return db.selectFrom('lecturers').selectAll().where('school_id', '=', schoolId);
}

/** Lecturers of the school, oldest first, each with their courses. */
export async function listLecturers(
  db: Db | Tx,
  schoolId: string,
  page: PageParams = {},
): Promise<Page<Lecturer>> {
  const rows = await paginate(lecturerQuery(db, schoolId), page, { table: 'lecturers' });
  return { data: await hydrate(db, rows.data), next_cursor: rows.next_cursor };
}

/** How many lecturers the school has. */
export function countLecturers(db: Db | Tx, schoolId: string): Promise<number> {
  return countRows(lecturerQuery(db, schoolId));
}

/** Changes a profile (name, headline, bio, avatar, linked user). */
export async function updateLecturer(
  db: Db | Tx,
  schoolId: string,
  id: string,
  input: z.input<typeof LecturerPatch>,
): Promise<Lecturer> {
  const patch = parseValid(LecturerPatch, input);
  return withTransaction(db, async (tx) => {
    await getLecturer(tx, schoolId, id);
    if (patch.userId) await checkUser(tx, schoolId, patch.userId, id);
    await tx
      .updateTable('lecturers')
      .set({ ...columnsOf(patch), updated_at: isoNow() })
      .where('school_id', '=', schoolId)
      .where('id', '=', id)
      .execute();
    return getLecturer(tx, schoolId, id);
  });
}

/** Deletes a profile; its courses stay, without this lecturer. */
export async function deleteLecturer(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await deleteOwned(db, 'lecturers', schoolId, id, 'lecturer');
}
