import { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { columnsOf } from '../kernel/case.ts';
import { deleteOwned, parseValid, withTransaction } from '../kernel/checks.ts';
import { declare } from '../kernel/field-meta.ts';
import { Amount, Currency, Id, Text } from '../kernel/fields.ts';
import { countRows, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { MembershipPlansTable } from '../kernel/tables.ts';

export const PLAN_INTERVALS = ['month', 'year', 'lifetime'] as const;
export const PLAN_STATUSES = ['active', 'archived'] as const;

/** A membership plan: a recurring (or lifetime) price that unlocks a set of courses. */
export interface MembershipPlan {
  id: string;
  schoolId: string;
  name: string;
  description: string;
  interval: (typeof PLAN_INTERVALS)[number];
  priceAmount: number;
  currency: string;
  status: (typeof PLAN_STATUSES)[number];
  courses: Array<{ id: string; title: string; slug: string }>;
  createdAt: string;
  updatedAt: string;
}

/** A plan's fields as a client writes them: each rule once (the admin API derives its bodies). */
const MembershipPlanFields = z.object({
  name: Text(200),
  description: declare(z.string().max(20_000), { kind: 'long_text' }),
  interval: z.enum(PLAN_INTERVALS),
  priceAmount: Amount,
  /** Defaults to the school's currency. */
  currency: Currency,
  status: z.enum(PLAN_STATUSES),
  courseIds: z.array(Id).max(500).describe('Courses of this school the plan includes.'),
});

/** A new plan: name, interval and price; active, in the school's currency, unless said otherwise. */
export const MembershipPlanCreate = MembershipPlanFields.partial({
  description: true,
  currency: true,
  status: true,
  courseIds: true,
});
export type MembershipPlanInput = z.input<typeof MembershipPlanCreate>;

/** A change to a plan: any of its fields. */
export const MembershipPlanPatch = MembershipPlanFields.partial();

async function hydrate(db: Db | Tx, rows: MembershipPlansTable[]): Promise<MembershipPlan[]> {
  const courses = new Map<string, MembershipPlan['courses']>();
  if (rows.length > 0) {
    const links = await db
      .selectFrom('membership_plan_courses')
      .innerJoin('courses', 'courses.id', 'membership_plan_courses.course_id')
      .select(['membership_plan_courses.plan_id', 'courses.id', 'courses.title', 'courses.slug'])
      .where(
        'membership_plan_courses.plan_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('courses.id')
      .execute();
    for (const l of links) {
      const list = courses.get(l.plan_id) ?? [];
      list.push({ id: l.id, title: l.title, slug: l.slug });
      courses.set(l.plan_id, list);
    }
  }
  return rows.map((r) => ({
    id: r.id,
    schoolId: r.school_id,
    name: r.name,
    description: r.description,
    interval: r.interval,
    priceAmount: r.price_amount,
    currency: r.currency,
    status: r.status,
    courses: courses.get(r.id) ?? [],
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
}

async function setCourses(
  db: Db | Tx,
  schoolId: string,
  planId: string,
  courseIds: readonly string[],
): Promise<void> {
  const unique = [...new Set(courseIds)];
  if (unique.length > 0) {
    const found = await db
      .selectFrom('courses')
      .select('id')
      .where('school_id', '=', schoolId)
      .where('id', 'in', unique)
      .execute();
    if (found.length !== unique.length) {
      throw problems.validation([{ field: 'courseIds', message: 'every course must exist at this school' }]);
    }
  }
  await db.deleteFrom('membership_plan_courses').where('plan_id', '=', planId).execute();
  if (unique.length > 0) {
    await db
      .insertInto('membership_plan_courses')
      .values(unique.map((course_id) => ({ plan_id: planId, course_id })))
      .execute();
  }
}

/** Creates a plan with its included courses. */
export async function createMembershipPlan(
  db: Db | Tx,
  schoolId: string,
  input: MembershipPlanInput,
): Promise<MembershipPlan> {
  const v = parseValid(MembershipPlanCreate, input);
  return withTransaction(db, async (tx) => {
    const school = await tx
      .selectFrom('schools')
      .select('currency')
      .where('id', '=', schoolId)
      .executeTakeFirst();
    if (!school) throw problems.notFound('No such school.');
    const now = isoNow();
    const id = newId('pln');
    await tx
      .insertInto('membership_plans')
      .values({
        id,
        school_id: schoolId,
        name: v.name,
        description: v.description ?? '',
        interval: v.interval,
        price_amount: v.priceAmount,
        currency: v.currency ?? school.currency,
        status: v.status ?? 'active',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await setCourses(tx, schoolId, id, v.courseIds ?? []);
    return getMembershipPlan(tx, schoolId, id);
  });
}

/** A plan of the school; 404 otherwise. */
export async function getMembershipPlan(db: Db | Tx, schoolId: string, id: string): Promise<MembershipPlan> {
  const row = await db
    .selectFrom('membership_plans')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such membership plan.');
  return (await hydrate(db, [row]))[0];
}

function planQuery(db: Db | Tx, schoolId: string, filter: { status?: MembershipPlan['status'] }) {
  let q = db.selectFrom('membership_plans').selectAll().where('school_id', '=', schoolId);
  if (filter.status) q = q.where('status', '=', filter.status);
  return q;
}

/** Plans of the school, oldest first, optionally by status. */
export async function listMembershipPlans(
  db: Db | Tx,
  schoolId: string,
  filter: { status?: MembershipPlan['status'] } = {},
  page: PageParams = {},
): Promise<Page<MembershipPlan>> {
  parseValid(MembershipPlanPatch.pick({ status: true }), filter);
  const rows = await paginate(planQuery(db, schoolId, filter), page, { table: 'membership_plans' });
  return { data: await hydrate(db, rows.data), next_cursor: rows.next_cursor };
}

/** How many plans match. */
export function countMembershipPlans(
  db: Db | Tx,
  schoolId: string,
  filter: { status?: MembershipPlan['status'] } = {},
): Promise<number> {
  return countRows(planQuery(db, schoolId, filter));
}

/** Changes a plan; courseIds, when given, replaces the included courses. */
export async function updateMembershipPlan(
  db: Db | Tx,
  schoolId: string,
  id: string,
  input: z.input<typeof MembershipPlanPatch>,
): Promise<MembershipPlan> {
  const { courseIds, ...patch } = parseValid(MembershipPlanPatch, input);
  return withTransaction(db, async (tx) => {
    await getMembershipPlan(tx, schoolId, id);
    await tx
      .updateTable('membership_plans')
      .set({ ...columnsOf(patch), updated_at: isoNow() })
      .where('school_id', '=', schoolId)
      .where('id', '=', id)
      .execute();
    if (courseIds !== undefined) await setCourses(tx, schoolId, id, courseIds);
    return getMembershipPlan(tx, schoolId, id);
  });
}

/** Deletes a plan (and, by cascade, its subscriptions): archive it instead to keep history. */
export async function deleteMembershipPlan(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await deleteOwned(db, 'membership_plans', schoolId, id, 'membership plan');
}
