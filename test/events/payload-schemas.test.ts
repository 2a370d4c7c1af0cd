/**
 * Every event type's data, produced by real actions and read back the way consumers read it: the
 * audit trail (`GET /api/v1/audit-events`) and a webhook receiver subscribed to `*`. Each payload
 * must match its type's schema (src/events/payloads.ts, which docs/webhooks.md lists) exactly.
 *
 * Actions go through the surface a person uses: the admin API with an operator token, the
 * Account API with a member token, the invitation page, the operator pages and the OAuth consent
 * for member apps and grants. Orders and new subscriptions have no surface (they arrive from a
 * payment provider's import), so they go through their domain functions, the one entry there is.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordOrder } from '../../src/domain/commerce/orders.ts';
import { createSubscription } from '../../src/domain/commerce/subscriptions.ts';
import { DEMO_PASSWORD } from '../../src/domain/demo/demo-seed.ts';
import {
  DELIVERABLE_EVENT_TYPES,
  EVENT_TYPES,
  type EventType,
  isEventType,
} from '../../src/events/catalogue.ts';
import { EVENT_DATA_SCHEMAS, eventDataFields } from '../../src/events/payloads.ts';
import { isoIn } from '../../src/store/time.ts';
import { gql } from '../account/graphql.ts';
import { api } from '../admin/api.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { Browser, formFields, obtainCode, tokenRequest } from '../support/oauth-flow.ts';
import { issueTestToken } from '../support/tokens.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import { createWorld, type World } from '../support/world.ts';
import { locationOf, signedIn, submit } from '../web/pages-support.ts';
import { addEndpoint, FakeClock, testWorker } from '../webhooks/support.ts';

type Call = ReturnType<typeof api>;
type Data = Record<string, unknown>;
interface TrailEvent {
  id: string;
  type: string;
  data: Data;
}

const REDIRECT = 'https://server.example/cb';
const ok = (r: { status: number; body: unknown }, status = 200) =>
  assert.equal(r.status, status, JSON.stringify(r.body));

/** Every event of the school, newest first, through every page of the audit trail. */
async function wholeTrail(call: Call): Promise<TrailEvent[]> {
  const events: TrailEvent[] = [];
  let cursor: string | null = null;
  do {
    const r = await call('GET', `/api/v1/audit-events?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    ok(r);
    events.push(...r.body.data);
    cursor = r.body.next_cursor;
  } while (cursor);
  return events;
}

/** Fails unless `data` has exactly the fields of `type` (none missing, none extra), each as typed. */
function assertMatchesSchema(type: string, data: Data, where: string): void {
  assert.ok(isEventType(type), `${where}: ${type} is no catalogue type`);
  assert.deepEqual(Object.keys(data).sort(), eventDataFields(type).sort(), `${where}: ${type}'s keys`);
  const parsed = EVENT_DATA_SCHEMAS[type].safeParse(data);
  assert.ok(parsed.success, `${where}: ${type} ${JSON.stringify(data)}: ${parsed.error?.message}`);
}

describe('every event type’s data matches its documented schema, end to end', () => {
  let t: TestApp;
  let world: World;
  let operator: Call;
  let receiver: WebhookReceiver;
  /** The newest event before the actions: what follows is theirs. */
  let mark: string;
  /** Ids the later steps need. */
  const ids: Record<string, string> = {};

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    operator = api(t, await world.demo.token());
    receiver = await new WebhookReceiver().start();
    receiver.secrets = [(await addEndpoint(operator, `${receiver.url}/all`, ['*'])).secret];
    mark = (await wholeTrail(operator))[0].id;
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('courses, curriculum and a coupon through the admin API', async () => {
    const draft = await operator('POST', '/api/v1/courses', {
      slug: 'schema-a',
      title: 'A',
      status: 'published',
    });
    ok(draft, 201);
    ok(await operator('PATCH', `/api/v1/courses/${draft.body.id}`, { status: 'draft', price_amount: 500 }));
    const course = await operator('POST', '/api/v1/courses', {
      slug: 'schema-b',
      title: 'B',
      status: 'published',
    });
    ok(course, 201);
    ids.course = course.body.id;
    const section = await operator('POST', `/api/v1/courses/${ids.course}/sections`, { title: 'S' });
    ok(section, 201);
    for (const title of ['One', 'Two']) {
      const lecture = await operator('POST', `/api/v1/sections/${section.body.id}/lectures`, {
        title,
        type: 'text',
        body: title,
      });
      ok(lecture, 201);
      ids[title] = lecture.body.id;
    }
    const coupon = await operator('POST', '/api/v1/coupons', {
      code: 'SCHEMA10',
      kind: 'percent',
      percent_off: 10,
    });
    ok(coupon, 201);
    ids.coupon = coupon.body.id;
  });

  it('an invitation through the admin API, accepted on the invitation page by a new person', async () => {
    const email = 'schema-invitee@example.com';
    const invited = await operator('POST', '/api/v1/members', { email, roles: ['student'] });
    ok(invited, 201);
    const trail = await operator('GET', '/api/v1/audit-events?type=member.invited&limit=1');
    assert.deepEqual(trail.body.data[0].data, {
      invitation_id: invited.body.id,
      email,
      roles: ['student'],
      invited_by_user_id: world.demo.ownerId,
      expires_at: invited.body.expires_at,
    });
    const path = new URL(invited.body.link).pathname;
    const browser = new Browser(t);
    const form = formFields(await (await browser.request(path)).text());
    form.set('name', 'Schema Invitee');
    form.set('password', DEMO_PASSWORD);
    const accepted = await browser.postForm(path, form);
    assert.equal(accepted.status, 303, await accepted.clone().text());
    const member = await operator('GET', `/api/v1/members?search=${email}`);
    ok(member);
    ids.member = member.body.data[0].id;
    ids.user = member.body.data[0].user_id;
  });

  it('enrollments, an event, roles and a member’s removal through the admin API', async () => {
    ok(await operator('POST', '/api/v1/enrollments', { user_id: ids.user, course_id: ids.course }), 201);
    const ending = await operator('POST', '/api/v1/enrollments', {
      user_id: world.demo.studentId,
      course_id: ids.course,
      expires_at: isoIn(3600),
    });
    ok(ending, 201);
    ok(await operator('PATCH', `/api/v1/enrollments/${ending.body.id}`, { expires_at: isoIn(-60) }));
    const event = await operator('POST', '/api/v1/events', {
      title: 'Schema meetup',
      starts_at: isoIn(86_400),
      ends_at: isoIn(90_000),
    });
    ok(event, 201);
    ids.event = event.body.id;
    ok(await operator('PATCH', `/api/v1/members/${ids.member}`, { roles: ['student', 'lecturer'] }));
  });

  it('progress, completion and event registrations through the Account API', async () => {
    const { token } = await issueTestToken(t, {
      userId: ids.user,
      schoolId: world.demo.schoolId,
      scopes: ['openid', 'account:read', 'account:write'],
      audience: 'member',
    });
    const member = (query: string, variables?: Record<string, unknown>) => gql(t, token, query, variables);
    const record = `mutation($i: RecordLectureProgressInput!) {
      recordLectureProgress(input: $i) { lectureProgress { completed } } }`;
    for (const [lectureId, positionSeconds, completed] of [
      [ids.One, 30, false],
      [ids.One, 60, true],
      [ids.Two, 10, true],
    ] as const) {
      const r = await member(record, { i: { lectureId, positionSeconds, completed } });
      assert.equal(r.body.errors, undefined, JSON.stringify(r.body));
    }
    for (const mutation of ['registerForEvent', 'cancelEventRegistration']) {
      const r = await member(`mutation($id: ID!) { ${mutation}(eventId: $id) { id } }`, { id: ids.event });
      assert.equal(r.body.errors, undefined, JSON.stringify(r.body));
    }
    ok(await operator('DELETE', `/api/v1/members/${ids.member}`), 204);
  });

  it('orders and a subscription from outside, then the subscription’s life through the admin API', async () => {
    const db = t.runtime.db;
    const schoolId = world.demo.schoolId;
    const student = world.demo.studentId;
    await recordOrder(db, schoolId, {
      userId: student,
      currency: 'EUR',
      items: [{ productType: 'course', productId: ids.course, title: 'B', unitAmount: 5000 }],
      couponId: ids.coupon,
      discountAmount: 500,
      refundedAmount: 1000,
    });
    const plan = await operator('POST', '/api/v1/membership-plans', {
      name: 'Schema plan',
      interval: 'month',
      price_amount: 1900,
    });
    ok(plan, 201);
    const sub = await createSubscription(db, schoolId, {
      userId: student,
      planId: plan.body.id,
      currentPeriodEnd: isoIn(10 * 86_400),
    });
    const path = `/api/v1/subscriptions/${sub.id}`;
    ok(await operator('PATCH', path, { current_period_end: isoIn(40 * 86_400) }));
    ok(await operator('PATCH', path, { status: 'past_due' }));
    ok(await operator('POST', `${path}/cancel`, { at_period_end: false }));
  });

  it('a member app on the operator pages, a grant by OAuth consent, revoked by the app (RFC 7009)', async () => {
    const owner = await signedIn(t, 'owner@example.com');
    const apps = `/admin/${world.demo.schoolId}/apps`;
    const created = await submit(owner, `${apps}/new`, apps, {
      name: 'Schema app',
      redirect_uris: REDIRECT,
      auth_method: 'client_secret_post',
      scope: ['openid', 'account:read'],
    });
    assert.equal(created.status, 303);
    const clientId = /\/apps\/(app_[0-9a-z]{26})\/secret$/.exec(locationOf(created))?.[1];
    assert.ok(clientId, locationOf(created));
    const secret = /id="client-secret">([^<]+)</.exec(
      await (await owner.request(locationOf(created))).text(),
    )?.[1];
    assert.ok(secret);
    const { code, verifier } = await obtainCode(t, {
      clientId,
      redirectUri: REDIRECT,
      scopes: ['openid', 'account:read'],
      resource: TEST_BASE_URL,
    });
    const tokens = await tokenRequest(t, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      client_secret: secret,
      code_verifier: verifier,
      resource: TEST_BASE_URL,
    });
    assert.equal(tokens.status, 200, await tokens.clone().text());
    const revoked = await t.request('/api/oauth/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: ((await tokens.json()) as { refresh_token: string }).refresh_token,
        client_id: clientId,
        client_secret: secret,
      }).toString(),
    });
    assert.equal(revoked.status, 200);
    const page = `${apps}/${clientId}`;
    assert.equal((await submit(owner, page, `${page}/rotate-secret`, {})).status, 303);
    assert.equal((await submit(owner, `${page}/delete`, `${page}/delete`, {})).status, 303);
  });

  it('webhook endpoints through the admin API, and one Lectern disables on a 410', async () => {
    const spare = await addEndpoint(operator, 'https://hooks.example.com/spare', ['course.*']);
    const path = `/api/v1/webhook-endpoints/${spare.id}`;
    ok(await operator('PATCH', path, { description: 'Spare' }));
    ok(await operator('POST', `${path}/rotate-secret`));
    ok(await operator('DELETE', path), 204);
    receiver.plan('/gone', { status: 410 });
    await addEndpoint(operator, `${receiver.url}/gone`, ['course.published']);
    ok(await operator('POST', '/api/v1/courses', { slug: 'schema-c', title: 'C', status: 'published' }), 201);
    const all = (await operator('GET', '/api/v1/webhook-endpoints')).body.data.find((e: { url: string }) =>
      e.url.endsWith('/all'),
    );
    ok(await operator('POST', `/api/v1/webhook-endpoints/${all.id}/test`), 202);
    // Until nothing is due: every event so far reaches the receiver, and /gone answers its 410.
    const worker = testWorker(t, new FakeClock());
    let rounds = 0;
    while ((await worker.runOnce()) > 0) assert.ok(++rounds < 20, 'the worker keeps finding work');
  });

  it('every event in the audit trail has exactly its type’s fields, and the actions gave every type', async () => {
    const trail = await wholeTrail(operator);
    for (const e of trail) assertMatchesSchema(e.type, e.data, `audit event ${e.id}`);
    const given = new Set(trail.filter((e) => e.id > mark).map((e) => e.type));
    assert.deepEqual(
      EVENT_TYPES.filter((type) => !given.has(type)),
      [],
      'types no action above produced: drive each new type here',
    );
  });

  it('every webhook delivered has exactly its type’s fields, the same as the audit trail’s', async () => {
    const trail = new Map((await wholeTrail(operator)).map((e) => [e.id, e]));
    const delivered = receiver.on('/all');
    assert.ok(delivered.length > 0);
    for (const got of delivered) {
      assert.deepEqual(got.signedBy, [0], 'verified by the reference implementation');
      assertMatchesSchema(got.json.type, got.json.data, `webhook ${got.id}`);
      assert.deepEqual(got.json.data, trail.get(got.id)?.data, `webhook ${got.id} carries the trail's data`);
    }
    // Every deliverable type, and the test event sent to this endpoint alone.
    const types = new Set(delivered.map((d) => d.json.type));
    const expected: EventType[] = [...DELIVERABLE_EVENT_TYPES, 'webhook.test'];
    assert.deepEqual(
      expected.filter((type) => !types.has(type)),
      [],
      'types the receiver never got',
    );
  });
});
