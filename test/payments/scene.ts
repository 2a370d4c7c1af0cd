import { createCourse } from '../../src/domain/catalog/courses.ts';
import { startCourseCheckout } from '../../src/domain/commerce/checkout.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { api } from '../admin/api.ts';
import type { TestApp } from '../support/app.ts';
import type { StandInAccount, StripeStandIn } from '../support/stripe-stand-in.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';

/** A school selling one published course through its connected (stand-in) Stripe account. */
export interface SellingSchool extends SchoolFixture {
  readonly stripe: StandInAccount;
  readonly courseId: string;
  /** A new person with no role at the school: a visitor about to buy. */
  buyer(): Promise<string>;
  /** Starts a checkout of the course for `userId`, expecting it to succeed. */
  checkout(userId: string, couponCode?: string): Promise<{ orderId: string; sessionId: string; url: string }>;
  /** POSTs a notice to the school's webhook URL, signed with `secret` at unix time `t`. */
  deliver(
    event: object,
    options?: { secret?: string; t?: number; signature?: string | null },
  ): Promise<Response>;
}

let n = 0;

/** Builds a school that has connected Stripe (over the admin API) and publishes a €50 course. */
export async function sellingSchool(
  t: TestApp,
  stand: StripeStandIn,
  name = 'Seller',
): Promise<SellingSchool> {
  const school = await schoolFixture(t, name);
  const account = stand.account();
  const connected = await api(t, await school.token(['school:write']))('PUT', '/api/v1/payments/stripe', {
    secret_key: account.secretKey,
    webhook_secret: account.webhookSecret,
  });
  if (connected.status !== 200) throw new Error(`connect: ${JSON.stringify(connected.body)}`);
  const course = await createCourse(t.runtime.db, school.schoolId, {
    slug: `paid-${++n}`,
    title: 'Watercolour basics',
    status: 'published',
    priceAmount: 5000,
    currency: 'EUR',
  });
  const settings = { apiBase: t.config.stripe.apiBase, sealKey: t.config.secret };
  return {
    ...school,
    stripe: account,
    courseId: course.id,
    buyer: async () =>
      (
        await createUser(t.runtime.db, {
          email: `buyer${++n}-${Date.now()}@example.com`,
          name: 'Buyer',
          passwordHash: null,
        })
      ).id,
    checkout: async (userId, couponCode) => {
      const started = await startCourseCheckout(t.runtime.db, settings, school.schoolId, {
        userId,
        courseId: course.id,
        couponCode,
        successUrl: `http://lectern.test/s/${school.schoolId}/checkout/done`,
        cancelUrl: `http://lectern.test/s/${school.schoolId}/courses/${course.id}`,
      });
      if (!started.ok) throw new Error(`checkout refused: ${started.reason}`);
      return started.checkout;
    },
    deliver: (event, options = {}) => {
      const payload = JSON.stringify(event);
      const signature =
        options.signature === undefined
          ? stand.sign(payload, options.secret ?? account.webhookSecret, options.t)
          : options.signature;
      return t.request(`/api/v1/payments/stripe/webhook/${school.schoolId}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(signature === null ? {} : { 'stripe-signature': signature }),
        },
        body: payload,
      });
    },
  };
}
