import type { Compilable, CompiledQuery } from 'kysely';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import {
  checkLimit,
  decodeCursor,
  encodeCursor,
  invalidCursor,
  type Page,
  type PageParams,
} from '../kernel/pagination.ts';
import {
  checkEnrollmentState,
  type EnrollmentState,
  type EnrollmentSummary,
  enrollmentStateCondition,
  toEnrollmentSummary,
} from '../learning/enrollments.ts';

/**
 * The member reads on the Account API's hot path (spec §2.5's query runs them on every call):
 * narrow rows, and each query shape compiled once per database so a request only binds values.
 */

const SENTINEL = '\u0000param:';

/** Stands in for a value while a query shape is compiled; swapped for the real one per call. */
function param<T = string>(name: string): T {
  return `${SENTINEL}${name}` as T;
}

const shapes = new WeakMap<object, Map<string, CompiledQuery>>();

/**
 * Runs the query `build` makes, compiled once per (database, shape): every `param(name)` in it
 * is bound from `values`, by name, on each call. Other values are fixed by the shape.
 */
async function runShape<R>(
  db: Db | Tx,
  shape: string,
  build: () => Compilable<R>,
  values: Readonly<Record<string, unknown>>,
): Promise<R[]> {
  let byShape = shapes.get(db);
  if (!byShape) {
    byShape = new Map();
    shapes.set(db, byShape);
  }
  let compiled = byShape.get(shape);
  if (!compiled) {
    compiled = build().compile();
    byShape.set(shape, compiled);
  }
  const parameters = compiled.parameters.map((p) =>
    typeof p === 'string' && p.startsWith(SENTINEL) ? values[p.slice(SENTINEL.length)] : p,
  );
  const result = await db.executeQuery<R>({ ...compiled, parameters });
  return result.rows;
}

/**
 * The member a request acts for: (school, user) of the access token. Every member read and
 * write (here and in member-account.ts) filters on both.
 */
export interface MemberScope {
  readonly schoolId: string;
  readonly userId: string;
}

/** The member's own profile (never the password hash). */
export interface MemberProfile {
  id: string;
  email: string;
  name: string;
}

/** The member's profile; 404 if the user is gone (their token would fail first). */
export async function getMemberProfile(db: Db | Tx, scope: MemberScope): Promise<MemberProfile> {
  const [row] = await runShape(
    db,
    'profile',
    () => db.selectFrom('users').select(['id', 'email', 'name']).where('id', '=', param('userId')),
    { userId: scope.userId },
  );
  if (!row) throw problems.notFound('No such member.');
  return row;
}

// The member's enrollments at the school (optionally in one state), before selecting anything.
function memberEnrollments(db: Db | Tx, state: EnrollmentState | undefined) {
  let q = db
    .selectFrom('enrollments')
    .innerJoin('courses', 'courses.id', 'enrollments.course_id')
    .where('enrollments.school_id', '=', param('schoolId'))
    .where('enrollments.user_id', '=', param('userId'));
  if (state) {
    q = q.where((eb) => enrollmentStateCondition(eb, state, param('now')));
  }
  return q;
}

// Only the columns a member sees, no join to users: row width is most of a page's cost.
function summaryQuery(db: Db | Tx, state: EnrollmentState | undefined, after: boolean) {
  let q = memberEnrollments(db, state).select([
    'enrollments.id',
    'enrollments.course_id',
    'courses.slug as course_slug',
    'courses.title as course_title',
    'enrollments.enrolled_at',
    'enrollments.expires_at',
    'enrollments.progress_percent',
    'enrollments.completed_at',
    'enrollments.last_lecture_id',
    'enrollments.last_position_seconds',
    'enrollments.last_watched_at',
  ]);
  // Keyset on the time-sortable id, served by the (school_id, user_id, id) index.
  if (after) q = q.where('enrollments.id', '>', param('after'));
  return q.orderBy('enrollments.id').limit(param<number>('limit'));
}

// The cursor row, looked up inside the same list (pagination.ts's rule, on this hand-compiled path).
function cursorQuery(db: Db | Tx, state: EnrollmentState | undefined) {
  return memberEnrollments(db, state).select('enrollments.id').where('enrollments.id', '=', param('after'));
}

/**
 * The member's enrollments as summaries, oldest first, optionally by state (the states of
 * enrollments.ts): one indexed query joined to courses by primary key; cursors as everywhere.
 */
export async function listMemberEnrollmentSummaries(
  db: Db | Tx,
  scope: MemberScope,
  page: PageParams,
  state?: EnrollmentState,
): Promise<Page<EnrollmentSummary>> {
  const checked = checkEnrollmentState(state);
  const limit = checkLimit(page.limit);
  const after = page.cursor ? decodeCursor(page.cursor) : null;
  const now = isoNow();
  const values = { schoolId: scope.schoolId, userId: scope.userId, now, after, limit: limit + 1 };
  if (after !== null) {
    // Another member's enrollment, another school's, or another list's id: never a page start.
    const found = await runShape(
      db,
      `enrollments-cursor:${checked ?? 'all'}`,
      () => cursorQuery(db, checked),
      values,
    );
    if (found.length === 0) throw invalidCursor();
  }
  const rows = await runShape(
    db,
    `enrollments:${checked ?? 'all'}:${after ? 'after' : 'first'}`,
    () => summaryQuery(db, checked, after !== null),
    values,
  );
  const more = rows.length > limit;
  const data = (more ? rows.slice(0, limit) : rows).map((r) => toEnrollmentSummary(r, now));
  return { data, next_cursor: more ? encodeCursor(data[data.length - 1].id) : null };
}
