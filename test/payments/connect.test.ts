/**
 * Connecting a school's Stripe account over the admin API, against the Stripe stand-in through
 * the real SDK: the key is checked with Stripe (`GET /v1/account`) before it is kept, both
 * secrets are write-only, stored sealed and never logged, and each school sees only its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api } from '../admin/api.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';

describe('connecting Stripe', () => {
  let t: LoggedTestApp;
  let stripe: StripeStandIn;
  let school: SchoolFixture;
  let other: SchoolFixture;
  before(async () => {
    stripe = await startStripeStandIn();
    t = await createLoggedTestApp({ STRIPE_API_BASE: stripe.base });
    school = await schoolFixture(t, 'Payments');
    other = await schoolFixture(t, 'Elsewhere');
  });
  after(async () => {
    await t.close();
    await stripe.close();
  });

  const webhookUrl = (id: string) => `http://lectern.test/api/v1/payments/stripe/webhook/${id}`;
  const events = [
    'checkout.session.completed',
    'checkout.session.async_payment_succeeded',
    'charge.refunded',
  ];

  it('reads not connected, with the webhook URL and the events to select', async () => {
    const res = await api(t, await school.token(['school:read']))('GET', '/api/v1/payments/stripe');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      connected: false,
      account_id: null,
      livemode: null,
      connected_at: null,
      webhook_url: webhookUrl(school.schoolId),
      webhook_events: events,
    });
  });

  it('refuses a key Stripe refuses with a 422 and keeps nothing', async () => {
    const call = api(t, await school.token(['school:write']));
    const before = stripe.calls.length;
    const res = await call('PUT', '/api/v1/payments/stripe', {
      secret_key: 'sk_test_NotAKeyStripeKnows000',
      webhook_secret: 'whsec_abcdefghijklmnop',
    });
    assert.equal(res.status, 422);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal(res.body.code, 'stripe_key_refused');
    assert.deepEqual(res.body.errors, [{ field: 'body.secret_key', message: 'was refused by Stripe' }]);
    assert.deepEqual(
      stripe.calls.slice(before).map((c) => `${c.method} ${c.path}`),
      ['GET /v1/account'],
    );
    assert.equal((await call('GET', '/api/v1/payments/stripe')).body.connected, false);
  });

  it('refuses what is not a Stripe key shape with a 422 naming the field, without asking Stripe', async () => {
    const call = api(t, await school.token(['school:write']));
    const before = stripe.calls.length;
    const res = await call('PUT', '/api/v1/payments/stripe', {
      secret_key: 'pk_test_123',
      webhook_secret: 'x',
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'validation_failed');
    assert.deepEqual(res.body.errors.map((e: { field: string }) => e.field).sort(), [
      'body.secret_key',
      'body.webhook_secret',
    ]);
    assert.ok(!JSON.stringify(res.body).includes('pk_test_123'), 'the refused value is not echoed');
    assert.equal(stripe.calls.length, before);
  });

  it('connects with a key Stripe accepts; the keys are never returned, logged or stored in the clear', async () => {
    const account = stripe.account();
    const call = api(t, await school.token(['school:write']));
    const res = await call('PUT', '/api/v1/payments/stripe', {
      secret_key: account.secretKey,
      webhook_secret: account.webhookSecret,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.connected, true);
    assert.equal(res.body.account_id, account.id);
    assert.equal(res.body.livemode, false);
    assert.equal(res.body.webhook_url, webhookUrl(school.schoolId));
    const read = await call('GET', '/api/v1/payments/stripe');
    assert.deepEqual(read.body, res.body);

    const row = await t.runtime.db
      .selectFrom('stripe_accounts')
      .selectAll()
      .where('school_id', '=', school.schoolId)
      .executeTakeFirstOrThrow();
    assert.match(row.secret_key, /^v1\./, 'sealed (crypto/secret-box.ts)');
    assert.ok(
      !row.secret_key.includes(account.secretKey) && !row.webhook_secret.includes(account.webhookSecret),
    );
    const logged = JSON.stringify(t.logs);
    assert.ok(!logged.includes(account.secretKey), 'the secret key is in no log line');
    assert.ok(!logged.includes(account.webhookSecret), 'the webhook secret is in no log line');

    // Another school's operator sees only their own school's (absent) connection.
    const theirs = await api(t, await other.token(['school:read']))('GET', '/api/v1/payments/stripe');
    assert.equal(theirs.body.connected, false);
    assert.equal(theirs.body.webhook_url, webhookUrl(other.schoolId));
  });

  it('disconnects: the keys are deleted, and again is still a 204', async () => {
    const call = api(t, await school.token(['school:write']));
    assert.equal((await call('DELETE', '/api/v1/payments/stripe')).status, 204);
    assert.equal((await call('DELETE', '/api/v1/payments/stripe')).status, 204);
    assert.equal((await call('GET', '/api/v1/payments/stripe')).body.connected, false);
    const rows = await t.runtime.db
      .selectFrom('stripe_accounts')
      .select('school_id')
      .where('school_id', '=', school.schoolId)
      .execute();
    assert.deepEqual(rows, []);
  });

  it('is an MCP-ready catalogue operation: connect needs school:write', async () => {
    const res = await api(t, await school.token(['school:read']))('PUT', '/api/v1/payments/stripe', {
      secret_key: 'sk_test_abcdefghijkl',
      webhook_secret: 'whsec_abcdefghijkl',
    });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'insufficient_scope');
  });
});
