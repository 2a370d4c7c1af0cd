import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENGINE } from '../support/database.ts';
import { issueTestToken } from '../support/tokens.ts';
import { type Seeded, seedSchool } from '../support/world-mcp.ts';
import { connectClient, type LiveApp, startLiveApp } from './harness.ts';

type Text = Array<{ type: string; text: string }>;
const BIG = 2_147_483_648;
const MAX_AMOUNT = 100_000_000_000;

describe(`MCP operator tools: integer ranges on ${ENGINE}`, () => {
  let live: LiveApp;
  let seeded: Seeded;
  before(async () => {
    live = await startLiveApp();
    seeded = await seedSchool(live.t);
  });
  after(() => live.close());

  it('a price of 2^31 goes through courses_create and courses_update and reads back exactly; above the money range is a tool error naming the field', async () => {
    const { token } = await issueTestToken(live.t, {
      userId: seeded.ownerId,
      schoolId: seeded.schoolId,
      audience: 'operator',
      scopes: ['courses:write', 'coupons:write'],
    });
    const { client } = await connectClient(live, { token });
    const created = await client.callTool({
      name: 'courses_create',
      arguments: { slug: 'big-price', title: 'Big price', price_amount: BIG },
    });
    assert.equal(created.isError, undefined, JSON.stringify(created));
    const course = created.structuredContent as { id: string; price_amount: number };
    assert.strictEqual(course.price_amount, BIG);
    const updated = await client.callTool({
      name: 'courses_update',
      arguments: { course_id: course.id, price_amount: BIG + 1 },
    });
    assert.equal(updated.isError, undefined, JSON.stringify(updated));
    assert.strictEqual((updated.structuredContent as { price_amount: number }).price_amount, BIG + 1);
    const got = await client.callTool({ name: 'courses_get', arguments: { course_id: course.id } });
    assert.strictEqual((got.structuredContent as { price_amount: number }).price_amount, BIG + 1);

    const tooBig = await client.callTool({
      name: 'courses_update',
      arguments: { course_id: course.id, price_amount: MAX_AMOUNT + 1 },
    });
    assert.equal(tooBig.isError, true);
    assert.match((tooBig.content as Text)[0].text, /price_amount/);
    assert.match((tooBig.content as Text)[0].text, /100000000000/);
    const redemptions = await client.callTool({
      name: 'coupons_create',
      arguments: { code: 'MANY', kind: 'percent', percent_off: 5, max_redemptions: BIG },
    });
    assert.equal(redemptions.isError, true, JSON.stringify(redemptions));
    assert.match((redemptions.content as Text)[0].text, /max_redemptions/);
    assert.match((redemptions.content as Text)[0].text, /2147483647/);
    await client.close();
  });
});
