import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runHousekeeping } from '../../src/background.ts';
import { createMembershipPlan } from '../../src/domain/commerce/membership-plans.ts';
import { RENEWAL_GRACE_MS } from '../../src/domain/commerce/subscription-periods.ts';
import { createSubscription } from '../../src/domain/commerce/subscriptions.ts';
import { isoIn } from '../../src/store/time.ts';
import { api } from '../admin/api.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { DAY, MINUTE } from '../support/clock.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { addEndpoint, FakeClock, testWorker } from '../webhooks/support.ts';

type Call = ReturnType<typeof api>;

/** A member of `s` with a monthly subscription whose period ends `periodEnd`. */
async function subscribe(t: TestApp, s: SchoolFixture, periodEnd: string, status?: 'trialing') {
  const plan = await createMembershipPlan(t.runtime.db, s.schoolId, {
    name: 'Monthly',
    interval: 'month',
    priceAmount: 1900,
    currency: 'EUR',
    courseIds: [],
  });
  const userId = await s.person(['student']);
  const sub = await createSubscription(t.runtime.db, s.schoolId, {
    userId,
    planId: plan.id,
    currentPeriodEnd: periodEnd,
    status,
  });
  return { id: sub.id, userId, planId: plan.id };
}

async function trail(call: Call, type: string) {
  const r = await call('GET', `/api/v1/audit-events?type=${type}&limit=100`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies under test
  return r.body.data as any[];
}

/**
 * Issue #13's subscription events: `subscription.renewed`, `.past_due` and `.canceled` from the
 * operator's report of what the payment provider did (PATCH, and its MCP tool from the same
 * catalogue entry), and from housekeeping when a period end passes.
 */
describe('subscription updates and their events', () => {
  let t: TestApp;
  let a: SchoolFixture;
  let b: SchoolFixture;
  let callA: Call;
  let callB: Call;
  let receiver: WebhookReceiver;
  before(async () => {
    t = await createTestApp();
    a = await schoolFixture(t, 'Alpha');
    b = await schoolFixture(t, 'Beta');
    callA = api(t, await a.token());
    callB = api(t, await b.token());
    receiver = await new WebhookReceiver().start();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('a period end moved forward renews: 200 with the subscription, subscription.renewed by the operator', async () => {
    const end = '2030-01-01T00:00:00.000Z';
    const sub = await subscribe(t, a, end);
    const r = await callA('PATCH', `/api/v1/subscriptions/${sub.id}`, {
      current_period_end: '2030-02-01T00:00:00Z',
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, {
      id: sub.id,
      user_id: sub.userId,
      user: r.body.user,
      plan_id: sub.planId,
      plan: { id: sub.planId, name: 'Monthly', interval: 'month', price_amount: 1900, currency: 'EUR' },
      status: 'active',
      current_period_end: '2030-02-01T00:00:00.000Z',
      cancel_at_period_end: false,
      canceled_at: null,
      trial_ends_at: null,
      created_at: r.body.created_at,
      updated_at: r.body.updated_at,
    });
    const [event] = (await trail(callA, 'subscription.renewed')).filter(
      (e) => e.data.subscription_id === sub.id,
    );
    assert.deepEqual(event, {
      id: event.id,
      type: 'subscription.renewed',
      actor: { type: 'user', id: a.ownerId, client_id: 'test-client-operator' },
      occurred_at: r.body.updated_at,
      data: {
        subscription_id: sub.id,
        user_id: sub.userId,
        plan_id: sub.planId,
        status: 'active',
        current_period_end: '2030-02-01T00:00:00.000Z',
        previous_period_end: end,
      },
      request_id: r.headers.get('x-request-id'),
    });
    // The same period end again, a period end moved back, a trial end: no new period, no event.
    for (const body of [
      { current_period_end: '2030-02-01T00:00:00.000Z' },
      { current_period_end: '2030-01-15T00:00:00.000Z' },
      { trial_ends_at: '2029-12-01T00:00:00.000Z' },
    ]) {
      const same = await callA('PATCH', `/api/v1/subscriptions/${sub.id}`, body);
      assert.equal(same.status, 200, JSON.stringify(same.body));
    }
    const after = await callA('GET', `/api/v1/subscriptions/${sub.id}`);
    assert.equal(after.body.current_period_end, '2030-01-15T00:00:00.000Z');
    assert.equal(after.body.trial_ends_at, '2029-12-01T00:00:00.000Z');
    assert.equal(
      (await trail(callA, 'subscription.renewed')).filter((e) => e.data.subscription_id === sub.id).length,
      1,
    );
  });

  it('past_due, then back to active with a new period (renewed), then canceled; canceled stays canceled', async () => {
    const sub = await subscribe(t, a, '2030-01-01T00:00:00.000Z');
    const path = `/api/v1/subscriptions/${sub.id}`;
    const overdue = await callA('PATCH', path, { status: 'past_due' });
    assert.equal(overdue.status, 200);
    assert.equal(overdue.body.status, 'past_due');
    const again = await callA('PATCH', path, { status: 'past_due' });
    assert.equal(again.status, 200, 'reporting the same status twice is no new event');
    const back = await callA('PATCH', path, { status: 'active', current_period_end: '2030-02-01T00:00:00Z' });
    assert.equal(back.status, 200);
    const canceled = await callA('PATCH', path, { status: 'canceled' });
    assert.equal(canceled.status, 200);
    assert.equal(canceled.body.status, 'canceled');
    assert.equal(canceled.body.canceled_at, canceled.body.updated_at);
    const events = (await trail(callA, 'subscription.renewed,subscription.past_due,subscription.canceled'))
      .filter((e) => e.data.subscription_id === sub.id)
      .reverse();
    assert.deepEqual(
      events.map((e) => [e.type, e.data.status, e.data.current_period_end, e.actor.type]),
      [
        ['subscription.past_due', 'past_due', '2030-01-01T00:00:00.000Z', 'user'],
        ['subscription.renewed', 'active', '2030-02-01T00:00:00.000Z', 'user'],
        ['subscription.canceled', 'canceled', '2030-02-01T00:00:00.000Z', 'user'],
      ],
    );
    assert.equal(events[1].data.previous_period_end, '2030-01-01T00:00:00.000Z');
    assert.equal(events[2].data.at_period_end, false);
    const revive = await callA('PATCH', path, { status: 'active' });
    assert.equal(revive.status, 409);
    assert.equal(revive.headers.get('content-type'), 'application/problem+json');
    assert.equal(revive.body.code, 'already_canceled');
    assert.equal(revive.body.status, 409);
  });

  it('validates the body with problem+json 422s naming each field', async () => {
    const sub = await subscribe(t, a, '2030-01-01T00:00:00.000Z');
    const path = `/api/v1/subscriptions/${sub.id}`;
    const bad = await callA('PATCH', path, {
      status: 'paused',
      current_period_end: 'next month',
      trial_ends_at: 12,
      cancel_at_period_end: true,
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.headers.get('content-type'), 'application/problem+json');
    assert.equal(bad.body.code, 'validation_failed');
    assert.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), [
      'body.cancel_at_period_end',
      'body.current_period_end',
      'body.status',
      'body.trial_ends_at',
    ]);
    const notJson = await callA('PATCH', path, undefined, { 'content-type': 'application/json' });
    assert.equal(notJson.status, 200, 'an empty PATCH changes nothing');
    assert.equal(notJson.body.status, 'active');
    const unchanged = await callA('GET', path);
    assert.equal(unchanged.body.current_period_end, '2030-01-01T00:00:00.000Z');
  });

  it('answers 404 for another school’s subscription, and changes nothing there', async () => {
    const sub = await subscribe(t, a, '2030-01-01T00:00:00.000Z');
    const r = await callB('PATCH', `/api/v1/subscriptions/${sub.id}`, { status: 'canceled' });
    assert.equal(r.status, 404);
    assert.equal(r.headers.get('content-type'), 'application/problem+json');
    assert.equal(r.body.code, 'not_found');
    const still = await callA('GET', `/api/v1/subscriptions/${sub.id}`);
    assert.equal(still.body.status, 'active');
    assert.deepEqual(
      (await trail(callB, 'subscription.canceled')).filter((e) => e.data.subscription_id === sub.id),
      [],
    );
  });

  it('delivers subscription.renewed and subscription.past_due as signed webhooks', async () => {
    const ep = await addEndpoint(callA, `${receiver.url}/subs`, [
      'subscription.renewed',
      'subscription.past_due',
    ]);
    receiver.secrets = [ep.secret];
    const sub = await subscribe(t, a, '2030-01-01T00:00:00.000Z');
    const path = `/api/v1/subscriptions/${sub.id}`;
    assert.equal((await callA('PATCH', path, { current_period_end: '2030-02-01T00:00:00Z' })).status, 200);
    assert.equal((await callA('PATCH', path, { status: 'past_due' })).status, 200);
    const worker = testWorker(t, new FakeClock());
    assert.equal(await worker.runOnce(), 2);
    const got = receiver.on('/subs');
    assert.deepEqual(
      got.map((g) => [g.json.type, g.signedBy]),
      [
        ['subscription.renewed', [0]],
        ['subscription.past_due', [0]],
      ],
      'in order, each verified by the reference implementation',
    );
    assert.deepEqual(got[1].json.data, {
      subscription_id: sub.id,
      user_id: sub.userId,
      plan_id: sub.planId,
      status: 'past_due',
      current_period_end: '2030-02-01T00:00:00.000Z',
    });
    const audit = (await trail(callA, 'subscription.past_due')).find(
      (e) => e.data.subscription_id === sub.id,
    );
    assert.equal(got[1].id, audit.id, 'webhook-id is the event id');
    assert.equal((await callA('DELETE', `/api/v1/webhook-endpoints/${ep.id}`)).status, 204);
  });
});

/** Housekeeping moves subscriptions whose period ended (own app: it moves the clock). */
describe('subscription period ends in housekeeping', () => {
  let t: TestApp;
  let s: SchoolFixture;
  let call: Call;
  before(async () => {
    t = await createTestApp();
    s = await schoolFixture(t);
    call = api(t, await s.token());
  });
  after(() => t.close());

  const housekeep = () => runHousekeeping(t.runtime.db, t.config, t.clock.now());
  /** Moves the clock, and takes a token that is still valid there. */
  const advance = async (ms: number) => {
    t.clock.advance(ms);
    call = api(t, await s.token());
  };
  const status = async (id: string) => (await call('GET', `/api/v1/subscriptions/${id}`)).body;

  it('cancels at the period end what was set to; makes a running one past due after the grace', async () => {
    const end = isoIn(DAY / 1000, t.clock.now());
    const ending = await subscribe(t, s, end);
    const running = await subscribe(t, s, end);
    const trial = await subscribe(t, s, end, 'trialing');
    const later = await subscribe(t, s, isoIn((40 * DAY) / 1000, t.clock.now()));
    const cancel = await call('POST', `/api/v1/subscriptions/${ending.id}/cancel`, { at_period_end: true });
    assert.equal(cancel.status, 200);
    assert.deepEqual((await housekeep()).subscriptions, { canceled: 0, pastDue: 0 });

    await advance(DAY + MINUTE);
    assert.deepEqual((await housekeep()).subscriptions, { canceled: 1, pastDue: 0 }, 'within the grace');
    const ended = await status(ending.id);
    assert.equal(ended.status, 'canceled');
    assert.equal(ended.canceled_at, end, 'canceled as of its period end');
    assert.equal(ended.cancel_at_period_end, false);
    assert.equal((await status(running.id)).status, 'active');

    await advance(RENEWAL_GRACE_MS);
    assert.deepEqual((await housekeep()).subscriptions, { canceled: 0, pastDue: 2 });
    assert.equal((await status(running.id)).status, 'past_due');
    assert.equal((await status(trial.id)).status, 'past_due');
    assert.equal((await status(later.id)).status, 'active');
    assert.deepEqual((await housekeep()).subscriptions, { canceled: 0, pastDue: 0 }, 'once each');

    const events = (await trail(call, 'subscription.canceled,subscription.past_due')).reverse();
    assert.deepEqual(
      events.map((e) => [e.type, e.data.subscription_id, e.data.status, e.actor]),
      [
        [
          'subscription.canceled',
          ending.id,
          'active',
          { type: 'user', id: s.ownerId, client_id: 'test-client-operator' },
        ],
        ['subscription.canceled', ending.id, 'canceled', { type: 'system', id: null, client_id: null }],
        ['subscription.past_due', running.id, 'past_due', { type: 'system', id: null, client_id: null }],
        ['subscription.past_due', trial.id, 'past_due', { type: 'system', id: null, client_id: null }],
      ],
    );
    assert.equal(events[1].occurred_at, end);
    assert.equal(events[1].data.at_period_end, true);
    assert.equal(events[1].request_id, null);
  });

  it('a renewal reported within the grace keeps it active', async () => {
    const end = isoIn(DAY / 1000, t.clock.now());
    const sub = await subscribe(t, s, end);
    await advance(DAY + MINUTE);
    const next = isoIn((30 * DAY) / 1000, t.clock.now());
    const renewed = await call('PATCH', `/api/v1/subscriptions/${sub.id}`, { current_period_end: next });
    assert.equal(renewed.status, 200);
    await advance(RENEWAL_GRACE_MS);
    assert.deepEqual((await housekeep()).subscriptions, { canceled: 0, pastDue: 0 });
    assert.equal((await status(sub.id)).status, 'active');
  });
});
