import { sql } from 'kysely';
import { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { problem, problems } from '../../errors/problem-error.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import {
  Checks,
  deleteOwned,
  flag,
  isUniqueViolation,
  parseValid,
  withTransaction,
} from '../kernel/checks.ts';
import { declare } from '../kernel/field-meta.ts';
import { Amount, Count, Currency, Id, Instant } from '../kernel/fields.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { CouponsTable } from '../kernel/tables.ts';

export const COUPON_KINDS = ['percent', 'fixed'] as const;
const PRODUCT_TYPES = ['course', 'digital_product', 'membership_plan', 'event'] as const;

/** A product a coupon may apply to. */
export const ProductRefFields = z.object({ type: z.enum(PRODUCT_TYPES), id: Id });
type ProductRef = z.output<typeof ProductRefFields>;

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

/** A coupon's fields as a client writes them: each rule once (the admin API derives its bodies). */
const CouponFields = z.object({
  code: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, - or _')
    .describe('Case-insensitive; stored upper-cased.'),
  kind: z.enum(COUPON_KINDS),
  percentOff: declare(z.number().int().min(1).max(100), { kind: 'percent' })
    .nullable()
    .describe('For `percent` coupons.'),
  amountOff: declare(Amount.min(1), { kind: 'money' })
    .nullable()
    .describe('For `fixed` coupons, in minor units of `currency`.'),
  currency: Currency.nullable(),
  maxRedemptions: Count.min(1).nullable(),
  expiresAt: Instant.nullable(),
  appliesTo: z.array(ProductRefFields).max(100).nullable(),
  active: z.boolean(),
});

/** A new coupon: its code and kind; the kind decides which amount fields it needs (checkShape). */
export const CouponCreate = CouponFields.partial({
  percentOff: true,
  amountOff: true,
  currency: true,
  maxRedemptions: true,
  expiresAt: true,
  appliesTo: true,
  active: true,
});
export type CouponInput = z.input<typeof CouponCreate>;

/** A change to a coupon: any of its fields. */
export const CouponPatch = CouponFields.partial();

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
function normalizeCode(code: string): string {
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

/** The columns a parsed coupon input sets (keys it does not name stay unset). */
function columns(v: z.output<typeof CouponPatch>): Partial<CouponsTable> {
  const set: Partial<CouponsTable> = {};
  if (v.code !== undefined) set.code = normalizeCode(v.code);
  if (v.kind !== undefined) set.kind = v.kind;
  if (v.percentOff !== undefined) set.percent_off = v.percentOff;
  if (v.amountOff !== undefined) set.amount_off = v.amountOff;
  if (v.currency !== undefined) set.currency = v.currency;
  if (v.maxRedemptions !== undefined) set.max_redemptions = v.maxRedemptions;
  if (v.expiresAt !== undefined) set.expires_at = v.expiresAt;
  if (v.appliesTo !== undefined) set.applies_to = v.appliesTo && JSON.stringify(v.appliesTo);
  if (v.active !== undefined) set.active = v.active ? 1 : 0;
  return set;
}

/** Creates a coupon; its code is unique in the school, case-insensitively (409 `code_taken`). */
export async function createCoupon(db: Db | Tx, schoolId: string, input: CouponInput): Promise<Coupon> {
  const v = parseValid(CouponCreate, input);
  const set = columns(v);
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
  const shape = new Checks();
  checkShape(shape, row);
  shape.done();
  return withTransaction(db, async (tx) => {
    await checkProducts(tx, schoolId, v.appliesTo ?? null);
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
  input: z.input<typeof CouponPatch>,
): Promise<Coupon> {
  const patch = parseValid(CouponPatch, input);
  const set = columns(patch);
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
