import { sql } from 'kysely';
import { newId } from '../../crypto/ids.ts';
import { problem, problems } from '../../errors/problem-error.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { Checks, deleteOwned, flag, isUniqueViolation, withTransaction } from '../kernel/checks.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { CouponsTable } from '../kernel/tables.ts';

export const COUPON_KINDS = ['percent', 'fixed'] as const;
export const PRODUCT_TYPES = ['course', 'digital_product', 'membership_plan', 'event'] as const;

/** A product a coupon applies to. */
export interface ProductRef {
  type: (typeof PRODUCT_TYPES)[number];
  id: string;
}

/** A discount code. Percent coupons carry `percentOff`; fixed ones `amountOff` in `currency`. */
export interface Coupon {
  id: string;
  schoolId: string;
  code: string;
  kind: (typeof COUPON_KINDS)[number];
  percentOff: number | null;
  amountOff: number | null;
  currency: string | null;
  maxRedemptions: number | null;
  redemptionsCount: number;
  expiresAt: string | null;
  /** Null: every product. */
  appliesTo: ProductRef[] | null;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface CouponInput {
  code: string;
  kind: Coupon['kind'];
  percentOff?: number | null;
  amountOff?: number | null;
  currency?: string | null;
  maxRedemptions?: number | null;
  expiresAt?: string | null;
  appliesTo?: ProductRef[] | null;
  active?: boolean;
}

export interface CouponFilter {
  active?: boolean;
  search?: string;
}

function toCoupon(r: CouponsTable): Coupon {
  return {
    id: r.id,
    schoolId: r.school_id,
    code: r.code,
    kind: r.kind,
    percentOff: r.percent_off,
    amountOff: r.amount_off,
    currency: r.currency,
    maxRedemptions: r.max_redemptions,
    redemptionsCount: r.redemptions_count,
    expiresAt: r.expires_at,
    appliesTo: r.applies_to ? (JSON.parse(r.applies_to) as ProductRef[]) : null,
    active: flag(r.active),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const codeTaken = (code: string) =>
  problem('code_taken', {
    detail: `Another coupon of this school already uses the code "${code}".`,
  });

/** Codes are compared case-insensitively, so they are stored upper-cased. */
export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}

// A coupon is consistent only as a whole: the kind decides which amount fields it needs.
function checkShape(
  c: Checks,
  row: Pick<CouponsTable, 'kind' | 'percent_off' | 'amount_off' | 'currency'>,
): void {
  if (row.kind === 'percent') {
    if (row.percent_off === null) c.fail('percentOff', 'is required for a percent coupon');
    if (row.amount_off !== null) c.fail('amountOff', 'must be null for a percent coupon');
  } else {
    if (row.amount_off === null) c.fail('amountOff', 'is required for a fixed coupon');
    if (row.currency === null) c.fail('currency', 'is required for a fixed coupon');
    if (row.percent_off !== null) c.fail('percentOff', 'must be null for a fixed coupon');
  }
}

async function checkProducts(
  db: Db | Tx,
  schoolId: string,
  refs: readonly ProductRef[] | null,
): Promise<void> {
  const tables = {
    course: 'courses',
    digital_product: 'digital_products',
    membership_plan: 'membership_plans',
    event: 'events',
  } as const;
  for (const [i, ref] of (refs ?? []).entries()) {
    const found = await db
      .selectFrom(tables[ref.type])
      .select('id')
      .where('school_id', '=', schoolId)
      .where('id', '=', ref.id)
      .executeTakeFirst();
    if (!found)
      throw problems.validation([
        { field: `appliesTo.${i}.id`, message: `no such ${ref.type} at this school` },
      ]);
  }
}

function fields(c: Checks, input: Partial<CouponInput>): Partial<CouponsTable> {
  const set: Partial<CouponsTable> = {};
  if (input.code !== undefined) {
    set.code = normalizeCode(c.text('code', input.code, 40));
    if (set.code && !/^[A-Z0-9_-]+$/.test(set.code)) c.fail('code', 'must be letters, digits, - or _');
  }
  if (input.kind !== undefined) set.kind = c.oneOf('kind', input.kind, COUPON_KINDS);
  if (input.percentOff !== undefined)
    set.percent_off = input.percentOff === null ? null : c.int('percentOff', input.percentOff, 1, 100);
  if (input.amountOff !== undefined)
    set.amount_off = input.amountOff === null ? null : c.amount('amountOff', input.amountOff, 1);
  if (input.currency !== undefined)
    set.currency = input.currency === null ? null : c.currency('currency', input.currency);
  if (input.maxRedemptions !== undefined)
    set.max_redemptions =
      input.maxRedemptions === null ? null : c.count('maxRedemptions', input.maxRedemptions, 1);
  if (input.expiresAt !== undefined) set.expires_at = c.optionalTimestamp('expiresAt', input.expiresAt);
  if (input.appliesTo !== undefined)
    set.applies_to = input.appliesTo === null ? null : JSON.stringify(input.appliesTo);
  if (input.active !== undefined) set.active = input.active ? 1 : 0;
  return set;
}

/** Creates a coupon; its code is unique in the school, case-insensitively (409 `code_taken`). */
export async function createCoupon(db: Db | Tx, schoolId: string, input: CouponInput): Promise<Coupon> {
  const c = new Checks();
  const set = fields(c, input);
  const now = isoNow();
  const row: CouponsTable = {
    id: newId('cpn'),
    school_id: schoolId,
    code: set.code ?? '',
    kind: set.kind ?? 'percent',
    percent_off: set.percent_off ?? null,
    amount_off: set.amount_off ?? null,
    currency: set.currency ?? null,
    max_redemptions: set.max_redemptions ?? null,
    redemptions_count: 0,
    expires_at: set.expires_at ?? null,
    applies_to: set.applies_to ?? null,
    active: set.active ?? 1,
    created_at: now,
    updated_at: now,
  };
  checkShape(c, row);
  c.done();
  return withTransaction(db, async (tx) => {
    await checkProducts(tx, schoolId, input.appliesTo ?? null);
    if (await findCouponByCode(tx, schoolId, row.code)) throw codeTaken(row.code);
    try {
      await tx.insertInto('coupons').values(row).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw codeTaken(row.code);
      throw err;
    }
    await recordEvent(tx, schoolId, 'coupon.created', { coupon_id: row.id, code: row.code, kind: row.kind });
    return toCoupon(row);
  });
}

/** A coupon of the school by code (case-insensitive), or undefined. */
export async function findCouponByCode(
  db: Db | Tx,
  schoolId: string,
  code: string,
): Promise<Coupon | undefined> {
  const row = await db
    .selectFrom('coupons')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('code', '=', normalizeCode(code))
    .executeTakeFirst();
  return row ? toCoupon(row) : undefined;
}

/** A coupon of the school; 404 otherwise. */
export async function getCoupon(db: Db | Tx, schoolId: string, id: string): Promise<Coupon> {
  const row = await db
    .selectFrom('coupons')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such coupon.');
  return toCoupon(row);
}

/** Coupons of the school, oldest first, by active flag or code search. */
export async function listCoupons(
  db: Db | Tx,
  schoolId: string,
  filter: CouponFilter = {},
  page: PageParams = {},
): Promise<Page<Coupon>> {
  let q = db.selectFrom('coupons').selectAll('coupons').where('coupons.school_id', '=', schoolId);
  if (filter.active !== undefined) q = q.where('coupons.active', '=', filter.active ? 1 : 0);
  if (filter.search)
    q = q.where(sql`upper(coupons.code)`, 'like', `%${normalizeCode(filter.search).replace(/[\\%_]/g, '')}%`);
  return mapPage(await paginate(q, page, { table: 'coupons' }), toCoupon);
}

/** Changes a coupon; the result must still be a consistent percent or fixed coupon. */
export async function updateCoupon(
  db: Db | Tx,
  schoolId: string,
  id: string,
  patch: Partial<CouponInput>,
): Promise<Coupon> {
  const c = new Checks();
  const set = fields(c, patch);
  c.done();
  return withTransaction(db, async (tx) => {
    const current = await tx
      .selectFrom('coupons')
      .selectAll()
      .where('school_id', '=', schoolId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!current) throw problems.notFound('No such coupon.');
    const next = { ...current, ...set };
    const shape = new Checks();
    checkShape(shape, next);
    shape.done();
    if (patch.appliesTo !== undefined) await checkProducts(tx, schoolId, patch.appliesTo);
    if (set.code && set.code !== current.code && (await findCouponByCode(tx, schoolId, set.code)))
      throw codeTaken(set.code);
    next.updated_at = isoNow();
    try {
      await tx
        .updateTable('coupons')
        .set({ ...set, updated_at: next.updated_at })
        .where('id', '=', id)
        .execute();
    } catch (err) {
      if (isUniqueViolation(err) && set.code) throw codeTaken(set.code);
      throw err;
    }
    return toCoupon(next);
  });
}

/** Deletes a coupon; past orders keep their code (coupon_id becomes null). */
export async function deleteCoupon(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await deleteOwned(db, 'coupons', schoolId, id, 'coupon');
}
