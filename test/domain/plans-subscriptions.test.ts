import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import {
  countMembershipPlans,
  createMembershipPlan,
  deleteMembershipPlan,
  getMembershipPlan,
  listMembershipPlans,
  updateMembershipPlan,
} from '../../src/domain/commerce/membership-plans.ts';
import {
  cancelSubscription,
  countSubscriptions,
  createSubscription,
  getSubscription,
  listSubscriptions,
} from '../../src/domain/commerce/subscriptions.ts';
import { isoIn } from '../../src/store/time.ts';
import { createDomainFixture, type DomainFixture } from '../support/world-domain.ts';
import { problemOf } from './problem-of.ts';

describe('membership plans and subscriptions repository contract', () => {
  let f: DomainFixture;
  let courses: string[];
  before(async () => {
    f = await createDomainFixture();
    courses = [
      (await createCourse(f.db, f.schoolA, { slug: 'one', title: 'One' })).id,
      (await createCourse(f.db, f.schoolA, { slug: 'two', title: 'Two' })).id,
    ];
  });
  after(() => f.close());

  it('creates plans with included courses, in the school currency by default', async () => {
    const plan = await createMembershipPlan(f.db, f.schoolA, {
      name: 'All access',
      interval: 'month',
      priceAmount: 1900,
      courseIds: courses,
    });
    assert.match(plan.id, /^pln_/);
    assert.equal(plan.currency, 'USD');
    assert.equal(plan.status, 'active');
    assert.deepEqual(plan.courses.map((c) => c.slug).sort(), ['one', 'two']);
    const theirs = await createCourse(f.db, f.schoolB, { slug: 'b', title: 'B' });
    const p = await problemOf(
      createMembershipPlan(f.db, f.schoolA, {
        name: 'x',
        interval: 'year',
        priceAmount: 1,
        courseIds: [theirs.id],
      }),
    );
    assert.deepEqual(p.errors, [{ field: 'courseIds', message: 'every course must exist at this school' }]);
    assert.equal(
      (
        await problemOf(
          createMembershipPlan(f.db, f.schoolA, { name: 'x', interval: 'week' as never, priceAmount: 1 }),
        )
      ).status,
      422,
    );
  });

  it('updates, lists by status, archives, deletes; isolated by school', async () => {
    const plan = await createMembershipPlan(f.db, f.schoolA, {
      name: 'Yearly',
      interval: 'year',
      priceAmount: 19000,
    });
    const u = await updateMembershipPlan(f.db, f.schoolA, plan.id, {
      courseIds: [courses[0]],
      status: 'archived',
    });
    assert.deepEqual(
      u.courses.map((c) => c.id),
      [courses[0]],
    );
    assert.equal(u.status, 'archived');
    assert.deepEqual(
      (await listMembershipPlans(f.db, f.schoolA, { status: 'archived' })).data.map((p) => p.name),
      ['Yearly'],
    );
    assert.equal(await countMembershipPlans(f.db, f.schoolA), 2);
    assert.equal((await listMembershipPlans(f.db, f.schoolB)).data.length, 0);
    assert.equal((await problemOf(getMembershipPlan(f.db, f.schoolB, plan.id))).code, 'not_found');
    assert.equal((await problemOf(deleteMembershipPlan(f.db, f.schoolB, plan.id))).status, 404);
    await deleteMembershipPlan(f.db, f.schoolA, plan.id);
    assert.equal((await problemOf(getMembershipPlan(f.db, f.schoolA, plan.id))).status, 404);
  });

  it('lists subscriptions with plan and user; cancels at period end or now', async () => {
    const [plan] = (await listMembershipPlans(f.db, f.schoolA)).data;
    const end = isoIn(30 * 86400);
    const sub = await createSubscription(f.db, f.schoolA, {
      userId: f.alice,
      planId: plan.id,
      currentPeriodEnd: end,
    });
    assert.equal(sub.status, 'active');
    assert.equal(sub.cancelAtPeriodEnd, false);
    assert.equal(sub.plan.name, 'All access');
    assert.equal(sub.user.email, 'alice@example.com');
    const later = await cancelSubscription(f.db, f.schoolA, sub.id, { atPeriodEnd: true });
    assert.equal(later.status, 'active');
    assert.equal(later.cancelAtPeriodEnd, true);
    assert.equal(later.canceledAt, null);
    const now = await cancelSubscription(f.db, f.schoolA, sub.id, { atPeriodEnd: false });
    assert.equal(now.status, 'canceled');
    assert.ok(now.canceledAt);
    assert.equal(now.cancelAtPeriodEnd, false);
    assert.deepEqual(await problemOf(cancelSubscription(f.db, f.schoolA, sub.id, { atPeriodEnd: false })), {
      status: 409,
      code: 'already_canceled',
      errors: undefined,
    });
    const lifetime = await createSubscription(f.db, f.schoolA, {
      userId: f.bob,
      planId: plan.id,
      status: 'trialing',
    });
    assert.equal(
      (await problemOf(cancelSubscription(f.db, f.schoolA, lifetime.id, { atPeriodEnd: true }))).code,
      'no_period_end',
    );
    assert.deepEqual(
      (await listSubscriptions(f.db, f.schoolA, { status: 'trialing' })).data.map((s) => s.userId),
      [f.bob],
    );
    assert.equal(await countSubscriptions(f.db, f.schoolA, { planId: plan.id }), 2);
    assert.equal((await listSubscriptions(f.db, f.schoolA, { userId: f.alice })).data.length, 1);
    assert.equal((await problemOf(getSubscription(f.db, f.schoolB, sub.id))).status, 404);
    assert.equal(
      (await problemOf(cancelSubscription(f.db, f.schoolB, lifetime.id, { atPeriodEnd: false }))).status,
      404,
    );
    assert.equal(
      (await problemOf(createSubscription(f.db, f.schoolB, { userId: f.carol, planId: plan.id }))).status,
      404,
    );
  });
});
