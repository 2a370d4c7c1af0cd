import { createCourse } from '../../src/domain/catalog/courses.ts';
import { createCoupon } from '../../src/domain/commerce/coupons.ts';
import { recordOrder } from '../../src/domain/commerce/orders.ts';
import { enroll } from '../../src/domain/learning/enrollments.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { changeSchoolSettings } from '../../src/domain/school/school-settings.ts';
import type { TestApp } from '../support/app.ts';
import { addPerson, schoolFixture, type World } from '../support/world.ts';

/**
 * A school of the Analytics and Orders pages' tests: euros in British English, days in Berlin,
 * with orders at fixed instants (one just after midnight in Berlin, still the day before in UTC),
 * a coupon, a partial refund, a failed payment and enough February orders for two pages. The demo
 * owner is made its owner too, so a signed-in browser can open it.
 */
export interface ShopSchool {
  readonly schoolId: string;
  readonly orderIds: {
    readonly watercolour: string;
    readonly sketching: string;
    readonly guide: string;
    readonly failed: string;
  };
}

/** Paid February orders of Cy Buyer, €10.00 each, one a day from 1 February 2026. */
export const FEBRUARY_ORDERS = 21;

export async function shopSchool(t: TestApp, world: World): Promise<ShopSchool> {
  const db = t.runtime.db;
  const { schoolId } = await schoolFixture(t, 'Zone School');
  await changeSchoolSettings(db, schoolId, { currency: 'EUR', locale: 'en-GB', timezone: 'Europe/Berlin' });
  await addRoles(db, schoolId, world.userId('owner@example.com'), ['owner']);
  const ada = await addPerson(db, schoolId, ['student'], `ada-${schoolId}@example.com`, 'Ada Buyer');
  const ben = await addPerson(db, schoolId, ['student'], `ben-${schoolId}@example.com`, 'Ben Buyer');
  const cy = await addPerson(db, schoolId, ['student'], `cy-${schoolId}@example.com`, 'Cy Buyer');
  const watercolour = await createCourse(db, schoolId, {
    slug: 'watercolour',
    title: 'Watercolour Basics',
    priceAmount: 4900,
  });
  const sketching = await createCourse(db, schoolId, {
    slug: 'sketching',
    title: 'Sketching',
    priceAmount: 2900,
  });
  const coupon = await createCoupon(db, schoolId, { code: 'SPRING', kind: 'percent', percentOff: 10 });
  const course = (c: { id: string; title: string }, unitAmount: number) => ({
    productType: 'course' as const,
    productId: c.id,
    title: c.title,
    unitAmount,
  });
  for (let day = 1; day <= FEBRUARY_ORDERS; day++) {
    await recordOrder(db, schoolId, {
      userId: cy,
      currency: 'EUR',
      items: [course(sketching, 1000)],
      createdAt: `2026-02-${String(day).padStart(2, '0')}T12:00:00.000Z`,
    });
  }
  // 00:30 on 2 March in Berlin.
  const o1 = await recordOrder(db, schoolId, {
    userId: ada,
    currency: 'EUR',
    items: [course(watercolour, 4900)],
    createdAt: '2026-03-01T23:30:00.000Z',
  });
  const o2 = await recordOrder(db, schoolId, {
    userId: ben,
    currency: 'EUR',
    items: [course(sketching, 2900)],
    discountAmount: 290,
    couponId: coupon.id,
    createdAt: '2026-03-05T10:00:00.000Z',
  });
  const o3 = await recordOrder(db, schoolId, {
    userId: ada,
    currency: 'EUR',
    status: 'partially_refunded',
    refundedAmount: 400,
    items: [{ productType: 'digital_product', productId: 'dp_guide', title: 'Brush Guide', unitAmount: 900 }],
    createdAt: '2026-03-10T09:00:00.000Z',
  });
  const o4 = await recordOrder(db, schoolId, {
    userId: ben,
    currency: 'EUR',
    status: 'failed',
    items: [course(watercolour, 4900)],
    createdAt: '2026-03-12T09:00:00.000Z',
  });
  await enroll(db, schoolId, {
    userId: ada,
    courseId: watercolour.id,
    enrolledAt: '2026-03-01T23:30:00.000Z',
  });
  await enroll(db, schoolId, { userId: ben, courseId: sketching.id, enrolledAt: '2026-03-05T10:00:00.000Z' });
  return { schoolId, orderIds: { watercolour: o1.id, sketching: o2.id, guide: o3.id, failed: o4.id } };
}

/** The text of an HTML fragment without its tags, whitespace collapsed. */
export function textOf(fragment: string): string {
  return fragment
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

/** The rows of the table with `id` on a page, each as its cells' text. */
export function tableRows(page: string, id: string): string[][] {
  const table = new RegExp(`<table[^>]*id="${id}"[^>]*>([\\s\\S]*?)</table>`).exec(page)?.[1];
  if (!table) throw new Error(`no table #${id}`);
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(table)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1].matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => textOf(cell[1])),
  );
}
