import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCourse, updateCourse } from '../../src/domain/catalog/courses.ts';
import { createCoupon, updateCoupon } from '../../src/domain/commerce/coupons.ts';
import { createDigitalProduct } from '../../src/domain/commerce/digital-products.ts';
import { createMembershipPlan } from '../../src/domain/commerce/membership-plans.ts';
import { recordOrder } from '../../src/domain/commerce/orders.ts';
import { MAX_AMOUNT, MAX_COUNT } from '../../src/domain/kernel/checks.ts';
import { ENGINE } from '../support/database.ts';
import { createDomainFixture, type DomainFixture } from '../support/world-domain.ts';
import { problemOf } from './problem-of.ts';

const tooBig = (field: string, max: number) => ({
  status: 422,
  code: 'validation_failed',
  errors: [{ field, message: `must be an integer from ${max === MAX_COUNT ? 1 : 0} to ${max}` }],
});

describe(`domain checks use the API's integer ranges (MAX_AMOUNT, MAX_COUNT) on ${ENGINE}`, () => {
  let f: DomainFixture;
  before(async () => {
    f = await createDomainFixture();
  });
  after(() => f.close());

  it('money: MAX_AMOUNT is stored and read back; one more is a 422 naming the field', async () => {
    const course = await createCourse(f.db, f.schoolA, {
      slug: 'max',
      title: 'Max',
      priceAmount: MAX_AMOUNT,
    });
    assert.equal(course.priceAmount, MAX_AMOUNT);
    assert.deepEqual(
      await problemOf(
        createCourse(f.db, f.schoolA, { slug: 'over', title: 'Over', priceAmount: MAX_AMOUNT + 1 }),
      ),
      tooBig('priceAmount', MAX_AMOUNT),
    );
    assert.deepEqual(
      await problemOf(updateCourse(f.db, f.schoolA, course.id, { priceAmount: MAX_AMOUNT + 1 })),
      tooBig('priceAmount', MAX_AMOUNT),
    );
    assert.deepEqual(
      await problemOf(
        createMembershipPlan(f.db, f.schoolA, { name: 'P', interval: 'year', priceAmount: MAX_AMOUNT + 1 }),
      ),
      tooBig('priceAmount', MAX_AMOUNT),
    );
    assert.deepEqual(
      await problemOf(createDigitalProduct(f.db, f.schoolA, { title: 'D', priceAmount: MAX_AMOUNT + 1 })),
      tooBig('priceAmount', MAX_AMOUNT),
    );
    assert.equal(
      (
        await problemOf(
          createCoupon(f.db, f.schoolA, { code: 'A', kind: 'fixed', amountOff: MAX_AMOUNT + 1 }),
        )
      ).status,
      422,
    );
  });

  it('counts: a redemption limit stops at MAX_COUNT', async () => {
    const coupon = await createCoupon(f.db, f.schoolA, {
      code: 'MANY',
      kind: 'percent',
      percentOff: 5,
      maxRedemptions: MAX_COUNT,
    });
    assert.equal(coupon.maxRedemptions, MAX_COUNT);
    assert.deepEqual(
      await problemOf(updateCoupon(f.db, f.schoolA, coupon.id, { maxRedemptions: MAX_COUNT + 1 })),
      tooBig('maxRedemptions', MAX_COUNT),
    );
  });

  it('orders: items may not add up to more than MAX_AMOUNT', async () => {
    const p = await problemOf(
      recordOrder(f.db, f.schoolA, {
        userId: f.alice,
        currency: 'USD',
        items: [
          { productType: 'course', productId: 'crs_x', title: 'X', unitAmount: MAX_AMOUNT, quantity: 2 },
        ],
      }),
    );
    assert.deepEqual(p, {
      status: 422,
      code: 'validation_failed',
      errors: [{ field: 'items', message: `must add up to at most ${MAX_AMOUNT}` }],
    });
  });
});
