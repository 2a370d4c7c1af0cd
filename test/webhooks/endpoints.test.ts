import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EVENT_TYPES, patternsMatch } from '../../src/events/catalogue.ts';
import { recordEvent } from '../../src/events/outbox.ts';
import { checkEndpointUrl } from '../../src/webhooks/endpoint-url.ts';
import { api } from '../admin/api.ts';
import { sampleEventData } from '../events/payload-samples.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { addEndpoint, FakeClock, testWorker } from './support.ts';

const PATH = '/api/v1/webhook-endpoints';

/** Issue #13 points 3 and 6, and bad input: managing endpoints, the SSRF guard, isolation. */
describe('webhook endpoints: management, validation, SSRF and isolation', () => {
  let t: TestApp;
  let a: SchoolFixture;
  let b: SchoolFixture;
  let callA: ReturnType<typeof api>;
  let callB: ReturnType<typeof api>;
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

  it('creates, lists, reads, changes and deletes an endpoint; the secret is shown only on create', async () => {
    const created = await callA('POST', PATH, {
      url: `${receiver.url}/crm`,
      event_types: ['enrollment.*', 'order.paid'],
      description: 'CRM',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match(created.body.secret, /^whsec_/);
    assert.equal(created.body.enabled, true);
    const read = await callA('GET', `${PATH}/${created.body.id}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.secret, undefined, 'never shown again');
    assert.deepEqual(read.body.event_types, ['enrollment.*', 'order.paid']);
    const stored = await t.runtime.db
      .selectFrom('webhook_endpoints')
      .select('secret')
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    assert.ok(!stored.secret.includes(created.body.secret.slice(6)), 'sealed at rest');
    const changed = await callA('PATCH', `${PATH}/${created.body.id}`, {
      description: 'CRM sync',
      enabled: false,
    });
    assert.equal(changed.status, 200);
    assert.equal(changed.body.enabled, false);
    const list = await callA('GET', PATH);
    assert.deepEqual(
      list.body.data.map((e: { id: string }) => e.id),
      [created.body.id],
    );
    const test = await callA('POST', `${PATH}/${created.body.id}/test`);
    assert.equal(test.status, 409);
    assert.equal(test.body.code, 'endpoint_disabled');
    assert.equal((await callA('DELETE', `${PATH}/${created.body.id}`)).status, 204);
    assert.equal((await callA('GET', `${PATH}/${created.body.id}`)).status, 404);
    const audit = await callA(
      'GET',
      '/api/v1/audit-events?type=webhook_endpoint.created,webhook_endpoint.updated,webhook_endpoint.deleted',
    );
    assert.deepEqual(
      audit.body.data.map((e: { type: string }) => e.type),
      ['webhook_endpoint.deleted', 'webhook_endpoint.updated', 'webhook_endpoint.created'],
    );
  });

  it('lists the event catalogue, marking the audit-only types', async () => {
    const r = await callA('GET', '/api/v1/event-types');
    assert.equal(r.status, 200);
    const byType = new Map(
      r.body.data.map((e: { type: string; deliverable: boolean }) => [e.type, e.deliverable]),
    );
    assert.equal(byType.get('lecture.completed'), true);
    assert.equal(byType.get('webhook_endpoint.created'), false);
  });

  it('refuses bad URLs and event types with problem+json naming each field', async () => {
    const bad = await callA('POST', PATH, {
      url: 'ftp://x',
      event_types: ['course.exploded', 'login.failed', ''],
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.headers.get('content-type'), 'application/problem+json');
    assert.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), [
      'body.event_types.0',
      'body.event_types.1',
      'body.event_types.2',
    ]);
    const cases: Array<[string, RegExp]> = [
      ['not a url', /absolute https/],
      ['http://hooks.example.com/x', /must use https/],
      ['https://user:pw@hooks.example.com/x', /credentials/],
      ['https://10.0.0.8/x', /public address/],
      ['https://169.254.169.254/latest/meta-data', /public address/],
      ['https://[fd00::1]/x', /public address/],
      ['https://[::ffff:192.168.0.1]/x', /public address/],
      ['https://metadata.google.internal/x', /public host name/],
      ['https://intranet/x', /public host name/],
      [`https://hooks.example.com/${'x'.repeat(2100)}`, /2048/],
    ];
    for (const [url, message] of cases) {
      const r = await callA('POST', PATH, { url, event_types: ['*'] });
      assert.equal(r.status, 422, url);
      assert.equal(r.body.errors[0].field, 'body.url', url);
      assert.match(r.body.errors[0].message, message, url);
    }
    const empty = await callA('POST', PATH, { url: 'https://hooks.example.com/x', event_types: [] });
    assert.equal(empty.status, 422);
    const extra = await callA('POST', PATH, {
      url: 'https://hooks.example.com/x',
      event_types: ['*'],
      secret: 'x',
    });
    assert.equal(extra.status, 422);
    const replay = await callA('POST', `${PATH}/whe_01jf3k6m2v8w9x0y1z2a3b4c5d/replay`, {});
    assert.equal(replay.status, 422);
  });

  it('allows loopback http outside production only (RFC 6890 special-purpose ranges otherwise)', () => {
    assert.equal(checkEndpointUrl('http://127.0.0.1:8080/x', true).ok, true);
    assert.equal(checkEndpointUrl('http://localhost:8080/x', true).ok, true);
    assert.equal(checkEndpointUrl('http://127.0.0.1:8080/x', false).ok, false);
    assert.equal(checkEndpointUrl('https://localhost/x', false).ok, false);
    assert.equal(checkEndpointUrl('https://hooks.example.com/x', false).ok, true);
    assert.equal(checkEndpointUrl('https://93.184.215.14/x', false).ok, true);
  });

  it('in production refuses a loopback endpoint when it is created', async () => {
    const prod = await createTestApp({ NODE_ENV: 'production', SEED_DEMO: 'false' });
    try {
      const s = await schoolFixture(prod);
      const call = api(prod, await s.token());
      const r = await call('POST', PATH, { url: `${receiver.url}/x`, event_types: ['*'] });
      assert.equal(r.status, 422);
      assert.match(r.body.errors[0].message, /loopback/);
    } finally {
      await prod.close();
    }
  });

  it('checks DNS at every delivery and connects only to a public answer (no rebinding to private)', async () => {
    const ep = await addEndpoint(callA, 'https://hooks.example.com/lectern', ['course.published']);
    await callA('POST', '/api/v1/courses', { slug: 'ssrf', title: 'SSRF', status: 'published' });
    const worker = testWorker(t, new FakeClock(), {
      fetch: {
        resolve: async () => [
          { address: '93.184.215.14', family: 4 },
          { address: '10.1.2.3', family: 4 },
        ],
      },
    });
    assert.equal(await worker.runOnce(), 1);
    const [attempt] = (await callA('GET', `${PATH}/${ep.id}/attempts`)).body.data;
    assert.equal(attempt.status_code, null);
    assert.match(attempt.error, /non-public address \(10\.1\.2\.3\)/);
    assert.ok(attempt.next_retry_at);
    await callA('DELETE', `${PATH}/${ep.id}`);
  });

  it('never lets one school read, change, test, replay to or learn of another school’s endpoints', async () => {
    const ep = await addEndpoint(callA, `${receiver.url}/mine`, ['course.published']);
    const bEndpoint = await addEndpoint(callB, `${receiver.url}/theirs`, ['course.published']);
    const course = await callA('POST', '/api/v1/courses', { slug: 'iso', title: 'Iso', status: 'published' });
    const aEvent = (await callA('GET', '/api/v1/audit-events?type=course.published&limit=1')).body.data[0];
    assert.equal(aEvent.data.course_id, course.body.id);
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `${PATH}/${ep.id}`],
      ['PATCH', `${PATH}/${ep.id}`, { enabled: false }],
      ['POST', `${PATH}/${ep.id}/rotate-secret`],
      ['POST', `${PATH}/${ep.id}/test`],
      ['POST', `${PATH}/${ep.id}/replay`, { since: '2020-01-01T00:00:00Z' }],
      ['GET', `${PATH}/${ep.id}/attempts`],
      ['DELETE', `${PATH}/${ep.id}`],
    ];
    for (const [method, path, body] of attempts) {
      const r = await callB(method, path, body);
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.body.code, 'not_found');
      assert.equal(r.body.detail, 'No such webhook endpoint.');
    }
    const stolen = await callB('POST', `${PATH}/${bEndpoint.id}/replay`, { event_id: aEvent.id });
    assert.equal(stolen.status, 404);
    assert.equal(stolen.body.detail, 'No such event.');
    const bList = await callB('GET', PATH);
    assert.deepEqual(
      bList.body.data.map((e: { id: string }) => e.id),
      [bEndpoint.id],
    );
    const still = await callA('GET', `${PATH}/${ep.id}`);
    assert.equal(still.body.enabled, true);
    // B's endpoint never receives A's events.
    const worker = testWorker(t, new FakeClock());
    await worker.runOnce();
    assert.ok(receiver.on('/theirs').every((r) => r.json.data.course_id !== course.body.id));
    assert.equal(receiver.on('/mine').at(-1)?.json.data.course_id, course.body.id);
  });

  it('the fan-out trigger follows the catalogue’s rule for every type and pattern shape', async () => {
    const s = await schoolFixture(t, 'Fan');
    const call = api(t, await s.token());
    const patterns = [
      '*',
      'enrollment.*',
      'lecture.*',
      'order.paid',
      'event_registration.*',
      'member.role_changed',
    ];
    const endpoints = new Map<string, string>();
    for (const p of patterns)
      endpoints.set(
        (await addEndpoint(call, `https://hooks.example.com/${encodeURIComponent(p)}`, [p])).id,
        p,
      );
    const off = await addEndpoint(call, 'https://hooks.example.com/off', ['*']);
    await call('PATCH', `${PATH}/${off.id}`, { enabled: false });
    await t.runtime.db.transaction().execute(async (tx) => {
      for (const type of EVENT_TYPES) await recordEvent(tx, s.schoolId, type, sampleEventData(type));
    });
    const deliveries = await t.runtime.db
      .selectFrom('webhook_deliveries')
      .innerJoin('domain_events', (j) =>
        j
          .onRef('domain_events.id', '=', 'webhook_deliveries.event_id')
          .onRef('domain_events.school_id', '=', 'webhook_deliveries.school_id'),
      )
      .select(['webhook_deliveries.endpoint_id', 'domain_events.type'])
      .where('webhook_deliveries.school_id', '=', s.schoolId)
      .execute();
    const got = deliveries.map((d) => `${endpoints.get(d.endpoint_id)} ${d.type}`).sort();
    const expected = [...endpoints.values()]
      .flatMap((p) => EVENT_TYPES.filter((type) => patternsMatch([p], type)).map((type) => `${p} ${type}`))
      .sort();
    assert.deepEqual(got, expected);
    assert.ok(!got.some((g) => g.endsWith('login.failed')), 'audit-only types never leave');
  });

  it('reads under school:read, manages under school:write (spec §5 scopes)', async () => {
    const reader = api(t, await a.token(['school:read']));
    assert.equal((await reader('GET', PATH)).status, 200);
    const refused = await reader('POST', PATH, { url: 'https://hooks.example.com/x', event_types: ['*'] });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'insufficient_scope');
    const other = api(t, await a.token(['courses:write']));
    assert.equal((await other('GET', PATH)).status, 403);
  });
});
