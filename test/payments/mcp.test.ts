/**
 * The payments operations as MCP operator tools, generated from the same catalogue definitions as
 * REST: connecting Stripe (the key checked with the stand-in) and refunding (a destructive tool).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectClient, type LiveApp, startLiveApp } from '../mcp/harness.ts';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts';
import { sellingSchool } from './scene.ts';

describe('payments over MCP', () => {
  let live: LiveApp;
  let stand: StripeStandIn;
  before(async () => {
    stand = await startStripeStandIn();
    live = await startLiveApp({ STRIPE_API_BASE: stand.base });
  });
  after(async () => {
    await live.close();
    await stand.close();
  });

  it('lists the tools with their hints, connects a key Stripe accepts and refuses one it does not', async () => {
    const school = await sellingSchool(live.t, stand, 'Mcp');
    const { client } = await connectClient(live, { token: await school.token(['school:write']) });
    const tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    assert.equal(tools.get('orders_refund')?.annotations?.destructiveHint, true);
    assert.equal(tools.get('school_connect_stripe')?.annotations?.idempotentHint, true);
    assert.ok(tools.has('school_get_stripe') && tools.has('school_disconnect_stripe'));

    const refused = await client.callTool({
      name: 'school_connect_stripe',
      arguments: { secret_key: 'sk_test_unknownToStripe1', webhook_secret: 'whsec_abcdefghij' },
    });
    assert.equal(refused.isError, true);
    assert.match(JSON.stringify(refused.content), /stripe_key_refused|Stripe refused this secret key/);

    const account = stand.account();
    const connected = await client.callTool({
      name: 'school_connect_stripe',
      arguments: { secret_key: account.secretKey, webhook_secret: account.webhookSecret },
    });
    assert.equal(connected.isError, undefined, JSON.stringify(connected));
    const body = connected.structuredContent as Record<string, unknown>;
    assert.equal(body.account_id, account.id);
    assert.equal(body.webhook_url, `${live.baseUrl}/api/v1/payments/stripe/webhook/${school.schoolId}`);
    assert.ok(!JSON.stringify(connected).includes(account.secretKey), 'the key is not echoed');
    await client.close();
  });

  it('refunds an order through the orders_refund tool', async () => {
    const school = await sellingSchool(live.t, stand, 'McpRefund');
    const buyer = await school.buyer();
    const { orderId, sessionId } = await school.checkout(buyer);
    assert.equal(
      (await school.deliver(stand.event('checkout.session.completed', stand.pay(sessionId)))).status,
      200,
    );
    const { client } = await connectClient(live, { token: await school.token(['school:write']) });
    const res = await client.callTool({
      name: 'orders_refund',
      arguments: { order_id: orderId, amount: 1200 },
    });
    assert.equal(res.isError, undefined, JSON.stringify(res));
    const order = res.structuredContent as Record<string, unknown>;
    assert.deepEqual([order.status, order.refunded_amount], ['partially_refunded', 1200]);
    await client.close();
  });
});
