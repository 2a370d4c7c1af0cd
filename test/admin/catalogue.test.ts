/**
 * Generated from the operation catalogue: for every admin operation, the bearer and scope rules
 * (RFC 6750 §3.1: 401 invalid_token, 403 insufficient_scope naming the scope), operator-only
 * access, school isolation, and a successful call whose response matches the operation's schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminOperations } from '../../src/admin/catalogue.ts';
import type { AdminOperation } from '../../src/admin/define-operation.ts';
import { locationTemplate } from '../../src/admin/rest.ts';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { isoIn } from '../../src/store/time.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { PNG, type Resources, seedResources } from '../support/world-resources.ts';
import { api } from './api.ts';

type Call = ReturnType<typeof api>;
interface Recipe {
  query?: Record<string, string>;
  body?: unknown;
}

let n = 0;
// Connecting Stripe checks the key with Stripe, and refunds go through it: here, the stand-in.
let stripe: StripeStandIn;
let testApp: TestApp;
const uniq = () => `${Date.now().toString(36)}${++n}`;

/** A valid request for every operation (creates use fresh values; deletes run last). */
const RECIPES: Record<string, (w: Resources, call: Call) => Promise<Recipe> | Recipe> = {
  'courses.list': () => ({ query: { status: 'published', limit: '5' } }),
  'courses.get': () => ({}),
  'courses.create': () => ({
    body: { slug: `c-${uniq()}`, title: 'New course', price_amount: 100, currency: 'EUR' },
  }),
  'courses.update': () => ({ body: { description: 'Updated' } }),
  'courses.delete': () => ({}),
  'curriculum.get': () => ({}),
  'curriculum.create_section': () => ({ body: { title: 'More' } }),
  'curriculum.get_section': () => ({}),
  'curriculum.update_section': () => ({ body: { title: 'Beginning' } }),
  'curriculum.delete_section': () => ({}),
  'curriculum.reorder_sections': async (w, call) => {
    const cur = await call('GET', `/api/v1/courses/${w.course_id}/curriculum`);
    return { body: { section_ids: cur.body.sections.map((s: { id: string }) => s.id).reverse() } };
  },
  'curriculum.create_lecture': () => ({
    body: { title: 'Extra', type: 'text', body: 'Read me', position: 1 },
  }),
  'curriculum.get_lecture': () => ({}),
  'curriculum.update_lecture': () => ({ body: { is_free_preview: true } }),
  'curriculum.delete_lecture': () => ({}),
  'curriculum.reorder_lectures': async (w, call) => {
    const sec = await call('GET', `/api/v1/sections/${w.section_id}`);
    return { body: { lecture_ids: sec.body.lectures.map((l: { id: string }) => l.id).reverse() } };
  },
  'students.list_enrollments': (w) => ({ query: { course_id: w.course_id } }),
  'students.get_enrollment': () => ({}),
  'students.enroll': (w) => ({ body: { course_id: w.course_id, email: w.unenrolled_email } }),
  'students.update_enrollment': () => ({ body: { expires_at: '2030-01-01T00:00:00Z' } }),
  'students.unenroll': () => ({}),
  'students.get_progress': () => ({}),
  'members.list': () => ({ query: { role: 'admin' } }),
  'members.get': () => ({}),
  'members.invite': () => ({ body: { email: `inv-${uniq()}@example.com`, roles: ['lecturer'] } }),
  'members.update': () => ({ body: { roles: ['admin', 'lecturer'] } }),
  'members.remove': () => ({}),
  'members.list_locked': () => ({}),
  'members.get_lock': () => ({}),
  'members.unlock': () => ({}),
  'members.list_invitations': () => ({ query: { status: 'pending' } }),
  'members.get_invitation': () => ({}),
  'members.resend_invitation': () => ({}),
  'members.revoke_invitation': () => ({}),
  'lecturers.list': () => ({}),
  'lecturers.get': () => ({}),
  'lecturers.create': () => ({ body: { name: 'Another lecturer' } }),
  'lecturers.update': () => ({ body: { headline: 'Teacher' } }),
  'lecturers.delete': () => ({}),
  'orders.list': () => ({ query: { status: 'paid', email: 'SAM@example.com' } }),
  'orders.get': () => ({}),
  'orders.refund': async (w, call) => {
    // The world's order, as if paid through the school's Stripe account.
    const account = stripe.account();
    await call('PUT', '/api/v1/payments/stripe', {
      secret_key: account.secretKey,
      webhook_secret: account.webhookSecret,
    });
    const db = testApp.runtime.db;
    const order = await db
      .selectFrom('orders')
      .select(['school_id', 'total_amount'])
      .where('id', '=', w.order_id)
      .executeTakeFirstOrThrow();
    await db
      .insertInto('order_payments')
      .values({
        order_id: w.order_id,
        school_id: order.school_id,
        session_id: 'cs_test_catalogue',
        payment_intent_id: stripe.paymentIntent(account, order.total_amount),
        created_at: new Date().toISOString(),
      })
      .execute();
    return { body: { amount: 100 } };
  },
  'coupons.list': () => ({ query: { active: 'true' } }),
  'coupons.get': () => ({}),
  'coupons.create': () => ({ body: { code: `X${uniq()}`, kind: 'fixed', amount_off: 500, currency: 'EUR' } }),
  'coupons.update': () => ({ body: { max_redemptions: 5 } }),
  'coupons.delete': () => ({}),
  'events.list': () => ({}),
  'events.get': () => ({}),
  'events.create': () => ({
    body: {
      title: 'Meetup',
      starts_at: '2030-01-01T10:00:00Z',
      ends_at: '2030-01-01T11:00:00Z',
      location: 'Berlin',
    },
  }),
  'events.update': () => ({ body: { capacity: 20 } }),
  'events.delete': () => ({}),
  'events.list_registrations': () => ({}),
  'events.cancel_registration': () => ({}),
  'membership_plans.list': () => ({}),
  'membership_plans.get': () => ({}),
  'membership_plans.create': () => ({ body: { name: 'Yearly', interval: 'year', price_amount: 19000 } }),
  'membership_plans.update': () => ({ body: { description: 'Everything' } }),
  'membership_plans.delete': () => ({}),
  'subscriptions.list': () => ({ query: { status: 'active' } }),
  'subscriptions.get': () => ({}),
  'subscriptions.update': () => ({ body: { current_period_end: '2031-01-01T00:00:00Z' } }),
  'subscriptions.cancel': () => ({ body: { at_period_end: true } }),
  'digital_products.list': () => ({}),
  'digital_products.get': () => ({}),
  'digital_products.create': () => ({ body: { title: 'Poster', price_amount: 500 } }),
  'digital_products.update': () => ({ body: { price_amount: 700 } }),
  'digital_products.delete': () => ({}),
  'posts.list': () => ({ query: { search: 'post' } }),
  'posts.get': () => ({}),
  'posts.create': () => ({ body: { title: 'News', slug: `n-${uniq()}` } }),
  'posts.update': () => ({ body: { status: 'draft' } }),
  'posts.delete': () => ({}),
  'comments.list': (w) => ({ query: { course_id: w.course_id } }),
  'comments.get': () => ({}),
  'forms.list': () => ({}),
  'forms.get': () => ({}),
  'forms.list_submissions': () => ({ query: { email: 'sam' } }),
  'forms.get_submission': () => ({}),
  'pages.list': () => ({ query: { published: 'true' } }),
  'pages.get': () => ({}),
  'pages.create': () => ({
    body: { slug: `p-${uniq()}`, title: 'Terms', blocks: [{ type: 'heading', text: 'Terms' }] },
  }),
  'pages.update': () => ({ body: { published: false } }),
  'pages.delete': () => ({}),
  'school.get': () => ({}),
  'school.update': () => ({ body: { timezone: 'Europe/Berlin', locale: 'de-de' } }),
  'appearance.get': () => ({}),
  'appearance.update': (w) => ({ body: { primary_color: '#112233', logo_file_id: w.file_id } }),
  'storage.upload': () => ({}),
  'storage.list': () => ({ query: { content_type: 'image/' } }),
  'storage.get': () => ({}),
  'storage.download': () => ({}),
  'storage.delete': () => ({}),
  'analytics.summary': () => ({ query: { from: isoIn(-86_400), to: isoIn(86_400) } }),
  'analytics.revenue': () => ({ query: { from: '2026-01-01T00:00:00Z' } }),
  'analytics.course_completion': () => ({}),
  'school.list_audit_events': () => ({ query: { type: 'course.published', limit: '5' } }),
  'school.list_event_types': () => ({}),
  'school.list_webhook_endpoints': () => ({ query: { limit: '5' } }),
  'school.get_webhook_endpoint': () => ({}),
  'school.create_webhook_endpoint': () => ({
    body: { url: `https://hooks.example.com/${uniq()}`, event_types: ['enrollment.*'] },
  }),
  'school.update_webhook_endpoint': () => ({ body: { description: 'Updated' } }),
  'school.delete_webhook_endpoint': () => ({}),
  'school.rotate_webhook_secret': () => ({}),
  'school.send_test_webhook': () => ({}),
  'school.replay_webhooks': () => ({ body: { since: '2020-01-01T00:00:00Z' } }),
  'school.list_webhook_attempts': () => ({}),
  'school.get_stripe': () => ({}),
  'school.connect_stripe': () => {
    const account = stripe.account();
    return { body: { secret_key: account.secretKey, webhook_secret: account.webhookSecret } };
  },
  'school.disconnect_stripe': () => ({}),
};

// Destructive operations run last, children before parents, so every other one finds its data.
const LAST = [
  'school.delete_webhook_endpoint',
  'events.cancel_registration',
  'subscriptions.cancel',
  'students.unenroll',
  'curriculum.delete_lecture',
  'curriculum.delete_section',
  'members.remove',
  'coupons.delete',
  'posts.delete',
  'pages.delete',
  'digital_products.delete',
  'storage.delete',
  'lecturers.delete',
  'events.delete',
  'membership_plans.delete',
  'courses.delete',
];
const ordered = [
  ...adminOperations.filter((op) => !LAST.includes(op.name)),
  ...LAST.map((name) => adminOperations.find((op) => op.name === name)!),
];

function pathOf(op: AdminOperation, w: Resources): string {
  return op.path.replace(/\{(\w+)\}/g, (_, p: string) => {
    assert.ok(w[p], `the world has a ${p}`);
    return w[p];
  });
}

function withQuery(path: string, query?: Record<string, string>): string {
  return query ? `${path}?${new URLSearchParams(query)}` : path;
}

describe('every catalogue operation', () => {
  let t: TestApp;
  let s: SchoolFixture;
  let other: SchoolFixture;
  let w: Resources;
  let otherWorld: Resources;
  let memberToken: string;
  let studentOperatorToken: string;
  let otherToken: string;
  before(async () => {
    stripe = await startStripeStandIn();
    t = await createTestApp({ STRIPE_API_BASE: stripe.base });
    testApp = t;
    s = await schoolFixture(t, 'Main');
    other = await schoolFixture(t, 'Other');
    w = await seedResources(t, s, 'main');
    otherWorld = await seedResources(t, other, 'other');
    memberToken = await s.token(OPERATOR_SCOPES, 'member');
    studentOperatorToken = await s.token(OPERATOR_SCOPES, 'operator', w.studentUserId);
    otherToken = await other.token();
  });
  after(async () => {
    await t.close();
    await stripe.close();
  });

  it('has a recipe for every operation, and every operation is reachable by exactly one scope', () => {
    assert.deepEqual(
      adminOperations.map((op) => op.name).filter((name) => !RECIPES[name]),
      [],
    );
    assert.equal(new Set(adminOperations.map((op) => op.name)).size, adminOperations.length);
  });

  for (const op of ordered) {
    it(`${op.name}: ${op.method} ${op.path} needs ${op.scope}`, async () => {
      const path = pathOf(op, w);
      const send = (token: string | undefined) =>
        t.request(path, { method: op.method, headers: token ? { authorization: `Bearer ${token}` } : {} });

      // RFC 6750 §3.1: no token → 401 with a challenge pointing at the resource metadata (RFC 9728).
      const none = await send(undefined);
      assert.equal(none.status, 401);
      assert.equal(none.headers.get('content-type'), 'application/problem+json');
      assert.match(
        none.headers.get('www-authenticate') ?? '',
        /^Bearer resource_metadata="http:\/\/lectern\.test\/\.well-known\/oauth-protected-resource"/,
      );
      assert.equal((await none.json()).code, 'invalid_token');

      // RFC 6750 §3.1: a valid token without the scope → 403 insufficient_scope naming it.
      const writeOf = op.scope.replace(/:read$/, ':write');
      const lacking = await s.token(OPERATOR_SCOPES.filter((x) => x !== op.scope && x !== writeOf));
      const refused = await send(lacking);
      assert.equal(refused.status, 403);
      const challenge = refused.headers.get('www-authenticate') ?? '';
      assert.match(challenge, /error="insufficient_scope"/);
      assert.match(challenge, new RegExp(`scope="${op.scope}"`));
      assert.equal((await refused.json()).code, 'insufficient_scope');

      // Member-audience tokens and people who are no longer operators never reach the admin API.
      const member = await send(memberToken);
      assert.equal(member.status, 403);
      assert.equal(member.headers.get('www-authenticate'), null, 'no step-up a member app could take');
      assert.equal((await member.json()).code, 'wrong_audience');
      const student = await send(studentOperatorToken);
      assert.equal(student.status, 403);
      assert.equal((await student.json()).code, 'not_an_operator');

      const recipe = await RECIPES[op.name](w, api(t, await s.token()));

      // Another school's operator, with every scope, never sees or changes this school's data.
      if (op.input.params) {
        const res = await t.request(withQuery(path, recipe.query), {
          method: op.method,
          headers: { authorization: `Bearer ${otherToken}`, 'content-type': 'application/json' },
          body: recipe.body === undefined ? undefined : JSON.stringify(recipe.body),
        });
        assert.equal(res.status, 404, `${op.name} with another school's token`);
      } else if (op.method === 'GET') {
        const res = await api(t, otherToken)('GET', withQuery(path, recipe.query));
        assert.equal(res.status, 200);
        const text = JSON.stringify(res.body);
        for (const id of Object.values(w)) assert.ok(!text.includes(id), `${op.name} leaks ${id}`);
      }

      // The exact scope (write implies read) is enough, and the response matches the schema.
      const call = api(t, await s.token([op.scope]));
      let res: Awaited<ReturnType<Call>>;
      if (op.binary === 'upload') {
        const r = await t.request(`${path}?filename=dot.png`, {
          method: 'POST',
          headers: { authorization: `Bearer ${await s.token([op.scope])}`, 'content-type': 'image/png' },
          body: PNG,
        });
        res = { status: r.status, headers: r.headers, body: await r.json() };
      } else if (op.binary === 'download') {
        const r = await t.request(path, {
          headers: { authorization: `Bearer ${await s.token([op.scope])}` },
        });
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('content-type'), 'image/png');
        assert.deepEqual(Buffer.from(await r.arrayBuffer()), PNG);
        return;
      } else {
        res = await call(op.method, withQuery(path, recipe.query), recipe.body);
      }
      const expected = op.status ?? (op.output ? 200 : 204);
      assert.equal(res.status, expected, `${op.name}: ${JSON.stringify(res.body)}`);
      if (expected === 204) {
        assert.equal(res.body, undefined);
        return;
      }
      const parsed = op.output!.safeParse(res.body);
      assert.ok(parsed.success, `${op.name} response matches its schema: ${parsed.error?.message}`);
      assert.deepEqual(parsed.data, res.body, `${op.name} sends no field outside its schema`);
      if (op.etag) assert.match(res.headers.get('etag') ?? '', /^"[A-Za-z0-9_-]{27}"$/);
      // RFC 9110 §10.2.2: a 201 says where the new resource is, and reading it there works.
      if (expected === 201 && locationTemplate(op, adminOperations)) {
        const location = res.headers.get('location') ?? '';
        assert.match(location, /^http:\/\/lectern\.test\/api\/v1\//);
        const read = await api(t, await s.token())('GET', location);
        assert.equal(read.status, 200);
        assert.equal(read.body.id, res.body.id);
      }
      // Nothing of the other school ever appears in this school's answers either.
      const text = JSON.stringify(res.body);
      for (const id of Object.values(otherWorld)) assert.ok(!text.includes(id), `${op.name} leaks ${id}`);
    });
  }
});
