import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { Checks, deleteOwned, withTransaction } from '../kernel/checks.ts';
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

export interface MembershipPlanInput {
  name: string;
  description?: string;
  interval: MembershipPlan['interval'];
  priceAmount: number;
  /** Defaults to the school's currency. */
  currency?: string;
  status?: MembershipPlan['status'];
  courseIds?: string[];
}

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

function check(input: Partial<MembershipPlanInput>, creating: boolean): Partial<MembershipPlansTable> {
  const c = new Checks();
  const set: Partial<MembershipPlansTable> = {};
  if (creating || input.name !== undefined) set.name = c.text('name', input.name);
  if (input.description !== undefined)
    set.description = c.optionalText('description', input.description) ?? '';
  if (creating || input.interval !== undefined)
    set.interval = c.oneOf('interval', input.interval, PLAN_INTERVALS);
  if (creating || input.priceAmount !== undefined)
    set.price_amount = c.amount('priceAmount', input.priceAmount);
  if (input.currency !== undefined) set.currency = c.currency('currency', input.currency);
  if (input.status !== undefined) set.status = c.oneOf('status', input.status, PLAN_STATUSES);
  c.done();
  return set;
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
  const set = check(input, true);
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
        name: set.name!,
        description: set.description ?? '',
        interval: set.interval!,
        price_amount: set.price_amount!,
        currency: set.currency ?? school.currency,
        status: set.status ?? 'active',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await setCourses(tx, schoolId, id, input.courseIds ?? []);
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
  if (filter.status !== undefined) check({ status: filter.status }, false);
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
  patch: Partial<MembershipPlanInput>,
): Promise<MembershipPlan> {
  const set = check(patch, false);
  return withTransaction(db, async (tx) => {
    await getMembershipPlan(tx, schoolId, id);
    await tx
      .updateTable('membership_plans')
      .set({ ...set, updated_at: isoNow() })
      .where('school_id', '=', schoolId)
      .where('id', '=', id)
      .execute();
    if (patch.courseIds !== undefined) await setCourses(tx, schoolId, id, patch.courseIds);
    return getMembershipPlan(tx, schoolId, id);
  });
}

/** Deletes a plan (and, by cascade, its subscriptions): archive it instead to keep history. */
export async function deleteMembershipPlan(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await deleteOwned(db, 'membership_plans', schoolId, id, 'membership plan');
}
