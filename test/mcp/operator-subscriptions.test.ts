import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMembershipPlan } from '../../src/domain/commerce/membership-plans.ts';
import { createSubscription } from '../../src/domain/commerce/subscriptions.ts';
import { ownerOperatorToken, type Seeded, seedSchool } from '../support/world-mcp.ts';
import { connectClient, type LiveApp, startLiveApp } from './harness.ts';

type Text = Array<{ type: string; text: string }>;

/** Issue #13: an agent reports what the payment provider did (the `subscriptions_update` tool). */
describe('MCP operator tool: subscriptions_update', () => {
  let live: LiveApp;
  let seeded: Seeded;
  before(async () => {
    live = await startLiveApp();
    seeded = await seedSchool(live.t);
  });
  after(() => live.close());

  it('reports a renewal (subscription.renewed by the agent’s user), refuses another school’s id', async () => {
    const db = live.t.runtime.db;
    const plan = await createMembershipPlan(db, seeded.schoolId, {
      name: 'Monthly',
      interval: 'month',
      priceAmount: 900,
      currency: 'EUR',
      courseIds: [],
    });
    const sub = await createSubscription(db, seeded.schoolId, {
      userId: seeded.studentId,
      planId: plan.id,
      currentPeriodEnd: '2030-01-01T00:00:00.000Z',
    });
    const token = await ownerOperatorToken(live.t, seeded, ['subscriptions:write', 'school:read']);
    const { client } = await connectClient(live, { token });
    const renewed = await client.callTool({
      name: 'subscriptions_update',
      arguments: { subscription_id: sub.id, current_period_end: '2030-02-01T00:00:00Z' },
    });
    assert.equal(renewed.isError, undefined, JSON.stringify(renewed));
    const body = renewed.structuredContent as Record<string, unknown>;
    assert.equal(body.status, 'active');
    assert.equal(body.current_period_end, '2030-02-01T00:00:00.000Z');
    const trail = await client.callTool({
      name: 'school_list_audit_events',
      arguments: { type: 'subscription.renewed' },
    });
    const page = trail.structuredContent as {
      data: Array<{ actor: { type: string; id: string }; data: Record<string, unknown> }>;
    };
    assert.deepEqual(page.data[0].actor.id, seeded.ownerId);
    assert.deepEqual(page.data[0].data.subscription_id, sub.id);
    assert.deepEqual(page.data[0].data.previous_period_end, '2030-01-01T00:00:00.000Z');
    const bad = await client.callTool({
      name: 'subscriptions_update',
      arguments: { subscription_id: sub.id, status: 'paused' },
    });
    assert.equal(bad.isError, true);
    assert.match((bad.content as Text)[0].text, /status/);
    await client.close();

    const other = await createMembershipPlan(db, seeded.otherSchoolId, {
      name: 'Elsewhere',
      interval: 'month',
      priceAmount: 900,
      currency: 'EUR',
      courseIds: [],
    });
    const foreign = await createSubscription(db, seeded.otherSchoolId, {
      userId: seeded.studentId,
      planId: other.id,
      currentPeriodEnd: '2030-01-01T00:00:00.000Z',
    });
    const again = await connectClient(live, { token });
    const refused = await again.client.callTool({
      name: 'subscriptions_update',
      arguments: { subscription_id: foreign.id, status: 'canceled' },
    });
    assert.equal(refused.isError, true);
    assert.match((refused.content as Text)[0].text, /No such subscription/);
    await again.client.close();
  });
});
