import { sql } from 'kysely';
import { z } from 'zod';
import type { Db, Tx } from '../../store/database.ts';
import { nowMs } from '../../store/time.ts';
import { Checks, parseValid } from '../kernel/checks.ts';
import { Instant } from '../kernel/fields.ts';
import { revenueOrders } from './orders.ts';

/**
 * Reports over a half-open range [from, to) of instants, computed from orders, enrollments and
 * lecture progress. Days are UTC days (the first 10 characters of the stored ISO timestamps),
 * the same on SQLite and PostgreSQL.
 */
export interface DateRange {
  from: string;
  to: string;
}

const DAY_MS = 86_400_000;
/** Longest range one report covers. */
const MAX_RANGE_DAYS = 731;

/** A report's window, as two instants. */
const RangeFields = z.object({ from: Instant.optional(), to: Instant.optional() });

/** The instant a report's "today" is read from: now on the app's clock (store/time.ts). */
export function reportNow(): number {
  return nowMs();
}

/** Checks a range (defaults: the last 30 days up to now); `from` must be before `to`. */
export function checkRange(from: string | undefined, to: string | undefined, now = nowMs()): DateRange {
  const range = parseValid(RangeFields, { from, to });
  const end = range.to ?? new Date(now).toISOString();
  const start = range.from ?? new Date(Date.parse(end) - 30 * DAY_MS).toISOString();
  const c = new Checks();
  if (!(start < end)) c.fail('from', 'must be before to');
  else if (Date.parse(end) - Date.parse(start) > MAX_RANGE_DAYS * DAY_MS)
    c.fail('from', `the range may span at most ${MAX_RANGE_DAYS} days`);
  c.done();
  return { from: start, to: end };
}

/** Net revenue per currency: gross minus refunds of paid or (partially) refunded orders. */
export interface RevenueTotal {
  currency: string;
  grossAmount: number;
  refundedAmount: number;
  netAmount: number;
  orders: number;
}

/** Revenue per currency over the range (orders.ts#revenueOrders says which orders count). */
export async function revenueTotals(
  db: Db | Tx,
  schoolId: string,
  range: DateRange,
): Promise<RevenueTotal[]> {
  const rows = await revenueOrders(db, schoolId, range)
    .select([
      'currency',
      sql<number>`sum(total_amount)`.as('gross'),
      sql<number>`sum(refunded_amount)`.as('refunded'),
      sql<number>`count(*)`.as('orders'),
    ])
    .groupBy('currency')
    .orderBy('currency')
    .execute();
  return rows.map((r) => ({
    currency: r.currency,
    grossAmount: Number(r.gross),
    refundedAmount: Number(r.refunded),
    netAmount: Number(r.gross) - Number(r.refunded),
    orders: Number(r.orders),
  }));
}

/** Net revenue per UTC day and currency, days without orders omitted. */
export async function revenueByDay(
  db: Db | Tx,
  schoolId: string,
  range: DateRange,
): Promise<Array<{ date: string; currency: string; netAmount: number; orders: number }>> {
  const day = sql<string>`substr(created_at, 1, 10)`;
  const rows = await revenueOrders(db, schoolId, range)
    .select([
      day.as('day'),
      'currency',
      sql<number>`sum(total_amount - refunded_amount)`.as('net'),
      sql<number>`count(*)`.as('orders'),
    ])
    .groupBy([day, 'currency'])
    .orderBy(day)
    .orderBy('currency')
    .execute();
  return rows.map((r) => ({
    date: r.day,
    currency: r.currency,
    netAmount: Number(r.net),
    orders: Number(r.orders),
  }));
}

/** Headline figures of the range. */
export interface Summary {
  revenue: RevenueTotal[];
  /** Enrollments that started in the range. */
  newEnrollments: number;
  /** Enrollments completed in the range. */
  completions: number;
  /** Distinct students who made progress on a lecture in the range. */
  activeStudents: number;
  /** Students holding at least one enrollment that has not expired at the end of the range. */
  totalStudents: number;
}

/** Revenue, enrollments, completions and active students over the range. */
export async function summary(db: Db | Tx, schoolId: string, range: DateRange): Promise<Summary> {
  const count = async (q: { executeTakeFirst(): Promise<{ n: number | string } | undefined> }) =>
    Number((await q.executeTakeFirst())?.n ?? 0);
  const enrollments = () => db.selectFrom('enrollments').where('school_id', '=', schoolId);
  const [revenue, newEnrollments, completions, activeStudents, totalStudents] = await Promise.all([
    revenueTotals(db, schoolId, range),
    count(
      enrollments()
        .select(sql<number>`count(*)`.as('n'))
        .where('enrolled_at', '>=', range.from)
        .where('enrolled_at', '<', range.to),
    ),
    count(
      enrollments()
        .select(sql<number>`count(*)`.as('n'))
        .where('completed_at', '>=', range.from)
        .where('completed_at', '<', range.to),
    ),
    count(
      db
        .selectFrom('lecture_progress')
        .innerJoin('enrollments', 'enrollments.id', 'lecture_progress.enrollment_id')
        .select(sql<number>`count(distinct enrollments.user_id)`.as('n'))
        .where('enrollments.school_id', '=', schoolId)
        .where('lecture_progress.updated_at', '>=', range.from)
        .where('lecture_progress.updated_at', '<', range.to),
    ),
    count(
      enrollments()
        .select(sql<number>`count(distinct user_id)`.as('n'))
        .where('enrolled_at', '<', range.to)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>=', range.to)])),
    ),
  ]);
  return { revenue, newEnrollments, completions, activeStudents, totalStudents };
}

/** Per course: enrollments started in the range, how many of those completed, and completions in the range. */
export interface CourseCompletion {
  courseId: string;
  title: string;
  enrollments: number;
  completedEnrollments: number;
  /** completedEnrollments / enrollments, 0..1 rounded to 4 places; null without enrollments. */
  completionRate: number | null;
  completionsInRange: number;
  averageProgressPercent: number | null;
}

/** Completion by course over the range, every course of the school, by title. */
export async function completionByCourse(
  db: Db | Tx,
  schoolId: string,
  range: DateRange,
): Promise<CourseCompletion[]> {
  const inRange = (col: string) =>
    sql`(e.${sql.ref(col)} >= ${range.from} and e.${sql.ref(col)} < ${range.to})`;
  const rows = await db
    .selectFrom('courses as c')
    .leftJoin('enrollments as e', 'e.course_id', 'c.id')
    .select([
      'c.id',
      'c.title',
      sql<number>`sum(case when ${inRange('enrolled_at')} then 1 else 0 end)`.as('enrollments'),
      sql<number>`sum(case when ${inRange('enrolled_at')} and e.completed_at is not null then 1 else 0 end)`.as(
        'completed',
      ),
      sql<number>`sum(case when ${inRange('completed_at')} then 1 else 0 end)`.as('completions'),
      sql<number | null>`avg(case when ${inRange('enrolled_at')} then e.progress_percent end)`.as(
        'avg_progress',
      ),
    ])
    .where('c.school_id', '=', schoolId)
    .groupBy(['c.id', 'c.title'])
    .orderBy('c.title')
    .orderBy('c.id')
    .execute();
  return rows.map((r) => {
    const enrollments = Number(r.enrollments ?? 0);
    const completed = Number(r.completed ?? 0);
    return {
      courseId: r.id,
      title: r.title,
      enrollments,
      completedEnrollments: completed,
      completionRate: enrollments === 0 ? null : Math.round((completed / enrollments) * 10_000) / 10_000,
      completionsInRange: Number(r.completions ?? 0),
      averageProgressPercent: r.avg_progress === null ? null : Math.round(Number(r.avg_progress) * 10) / 10,
    };
  });
}
