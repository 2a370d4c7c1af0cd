import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { api } from '../admin/api.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { startTestSmtpServer } from '../support/smtp.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { addEndpoint, FakeClock, testWorker } from './support.ts';

/**
 * Issue #13 points 3 to 5, end to end: deliveries in the Standard Webhooks format (verified by
 * the reference `standardwebhooks` package), retries on its schedule, Retry-After, 410 and
 * disabling, all on an injected clock (no sleeping).
 */
describe('webhook delivery (Standard Webhooks)', () => {
  let t: TestApp;
  let s: SchoolFixture;
  let call: ReturnType<typeof api>;
  let receiver: WebhookReceiver;
  let clock: FakeClock;
  let n = 0;
  before(async () => {
    t = await createTestApp();
    s = await schoolFixture(t);
    call = api(t, await s.token());
    receiver = await new WebhookReceiver().start();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });
  beforeEach(() => {
    clock = new FakeClock();
  });

  /** Publishes a new course: one `course.published` event. */
  const publish = async () => {
    const r = await call('POST', '/api/v1/courses', {
      slug: `c-${++n}`,
      title: `C ${n}`,
      status: 'published',
    });
    assert.equal(r.status, 201);
    return r.body.id as string;
  };
  const attempts = async (endpointId: string) => {
    const r = await call('GET', `/api/v1/webhook-endpoints/${endpointId}/attempts?limit=100`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies under test
    return r.body.data as any[];
  };
  const endpoint = async (id: string) => (await call('GET', `/api/v1/webhook-endpoints/${id}`)).body;

  it('delivers a signed, thin JSON body with the event id as webhook-id, and logs the attempt', async () => {
    const ep = await addEndpoint(call, `${receiver.url}/signed`, ['course.*']);
    assert.match(ep.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    receiver.secrets = [ep.secret];
    const courseId = await publish();
    const worker = testWorker(t, clock);
    assert.equal(await worker.runOnce(), 1);
    const [got] = receiver.on('/signed');
    assert.deepEqual(got.signedBy, [0], 'verified by the reference implementation');
    assert.match(got.id, /^evt_/);
    assert.equal(got.timestamp, Math.floor(clock.now / 1000));
    assert.deepEqual(Object.keys(got.json), ['type', 'timestamp', 'data']);
    assert.equal(got.json.type, 'course.published');
    assert.deepEqual(got.json.data, { course_id: courseId, slug: `c-${n}`, status: 'published' });
    const audit = await call('GET', '/api/v1/audit-events?type=course.published&limit=1');
    assert.equal(audit.body.data[0].id, got.id);
    assert.equal(got.json.timestamp, audit.body.data[0].occurred_at);
    const [logged] = await attempts(ep.id);
    assert.equal(logged.event_id, got.id);
    assert.equal(logged.status_code, 204);
    assert.equal(logged.error, null);
    assert.equal(logged.next_retry_at, null);
    assert.equal(await worker.runOnce(), 0, 'delivered once');
    await call('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
  });

  it('retries failures on the Standard Webhooks schedule (5 s, 5 min, …) with the same webhook-id', async () => {
    const ep = await addEndpoint(call, `${receiver.url}/flaky`, ['course.published']);
    receiver.secrets = [ep.secret];
    receiver.plan('/flaky', { status: 500, body: 'boom' }, { status: 502 });
    await publish();
    const worker = testWorker(t, clock);
    const t0 = clock.now;
    assert.equal(await worker.runOnce(), 1);
    let log = await attempts(ep.id);
    assert.equal(log[0].status_code, 500);
    assert.equal(log[0].response_excerpt, 'boom');
    assert.equal(log[0].next_retry_at, new Date(t0 + 5_000).toISOString());
    clock.advance(4_000);
    assert.equal(await worker.runOnce(), 0, 'not before its time');
    clock.advance(1_000);
    assert.equal(await worker.runOnce(), 1);
    log = await attempts(ep.id);
    assert.equal(log[0].next_retry_at, new Date(clock.now + 300_000).toISOString());
    clock.advance(300_000);
    assert.equal(await worker.runOnce(), 1);
    const got = receiver.on('/flaky');
    assert.equal(got.length, 3);
    assert.equal(new Set(got.map((g) => g.id)).size, 1, 'one webhook-id across retries');
    assert.deepEqual(
      got.map((g) => g.duplicate),
      [false, true, true],
    );
    assert.ok(got.every((g) => g.signedBy.length === 1));
    log = await attempts(ep.id);
    assert.deepEqual(
      log.map((a) => a.status_code),
      [204, 502, 500],
    );
    assert.equal((await endpoint(ep.id)).failing_since, null, 'a success ends the failing streak');
    await call('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
  });

  it('honours Retry-After on 429 (seconds) and 503 (HTTP-date)', async () => {
    const ep = await addEndpoint(call, `${receiver.url}/busy`, ['course.published']);
    const later = new Date(Math.ceil((clock.now + 3_600_000) / 1000) * 1000);
    receiver.plan(
      '/busy',
      { status: 429, headers: { 'retry-after': '120' } },
      {
        status: 503,
        headers: { 'retry-after': later.toUTCString() },
      },
    );
    await publish();
    const worker = testWorker(t, clock);
    await worker.runOnce();
    assert.equal((await attempts(ep.id))[0].next_retry_at, new Date(clock.now + 120_000).toISOString());
    clock.advance(120_000);
    assert.equal(await worker.runOnce(), 1);
    assert.equal((await attempts(ep.id))[0].next_retry_at, later.toISOString());
    clock.now = later.getTime();
    assert.equal(await worker.runOnce(), 1);
    assert.equal((await attempts(ep.id))[0].status_code, 204);
    await call('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
  });

  it('410 Gone disables the endpoint at once; its events wait, and are delivered once re-enabled', async () => {
    const ep = await addEndpoint(call, `${receiver.url}/gone`, ['course.published']);
    receiver.plan('/gone', { status: 410 });
    const since = new Date().toISOString();
    await publish();
    const worker = testWorker(t, clock);
    await worker.runOnce();
    const off = await endpoint(ep.id);
    assert.equal(off.enabled, false);
    assert.match(off.disabled_reason, /410 Gone/);
    const audit = await call('GET', '/api/v1/audit-events?type=webhook_endpoint.disabled');
    assert.equal(audit.body.data[0].data.endpoint_id, ep.id);
    assert.equal(audit.body.data[0].data.reason, 'gone');
    assert.deepEqual(audit.body.data[0].actor, { type: 'system', id: null, client_id: null });
    await publish(); // not fanned out to a disabled endpoint
    clock.advance(86_400_000);
    assert.equal(await worker.runOnce(), 0);
    const on = await call('PATCH', `/api/v1/webhook-endpoints/${ep.id}`, { enabled: true });
    assert.equal(on.body.disabled_reason, null);
    const replayed = await call('POST', `/api/v1/webhook-endpoints/${ep.id}/replay`, {
      since,
    });
    assert.equal(replayed.status, 202);
    assert.equal(replayed.body.queued, 2);
    assert.equal(await worker.runOnce(), 2);
    await call('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
  });

  it('emails the school’s owners when Lectern disables an endpoint (with SMTP_URL)', async () => {
    const smtp = await startTestSmtpServer();
    const mailing = await createTestApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Lectern <no-reply@lectern.test>' });
    try {
      const s2 = await schoolFixture(mailing, 'Mailing');
      const owner = await mailing.runtime.db
        .selectFrom('users')
        .select('email')
        .where('id', '=', s2.ownerId)
        .executeTakeFirstOrThrow();
      const call2 = api(mailing, await s2.token());
      const ep = await addEndpoint(call2, `${receiver.url}/gone-mail`, ['course.published']);
      receiver.plan('/gone-mail', { status: 410 });
      await call2('POST', '/api/v1/courses', { slug: 'm', title: 'M', status: 'published' });
      await testWorker(mailing, clock).runOnce();
      const mail = await smtp.waitFor((m) => m.envelopeTo.includes(owner.email));
      assert.match(mail.subject, /Webhook endpoint disabled/);
      assert.match(mail.text, /410 Gone/);
      assert.match(mail.text, new RegExp(`/admin/${s2.schoolId}/webhooks`));
      assert.equal((await call2('GET', `/api/v1/webhook-endpoints/${ep.id}`)).body.enabled, false);
    } finally {
      await mailing.close();
      await smtp.close();
    }
  });

  it('disables an endpoint that fails for days with no success, and keeps trying no more', async () => {
    const ep = await addEndpoint(call, `${receiver.url}/down`, ['course.published']);
    for (let i = 0; i < 40; i++) receiver.plan('/down', { status: 500 });
    const worker = testWorker(t, clock);
    const start = clock.now;
    await publish();
    await worker.runOnce();
    assert.ok((await endpoint(ep.id)).failing_since);
    // A new event every day; each fails, until the streak reaches WEBHOOK_DISABLE_AFTER_DAYS (5).
    for (let day = 1; day <= 5; day++) {
      clock.now = start + day * 86_400_000;
      await publish();
      await worker.runOnce();
      assert.equal((await endpoint(ep.id)).enabled, day < 5, `day ${day}`);
    }
    assert.match((await endpoint(ep.id)).disabled_reason, /failing for days/);
    clock.advance(7 * 86_400_000);
    assert.equal(await worker.runOnce(), 0);
    await call('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
  });

  it('gives up after the tenth attempt (the schedule’s end)', async () => {
    const ep = await addEndpoint(call, `${receiver.url}/never`, ['course.published']);
    for (let i = 0; i < 12; i++) receiver.plan('/never', { status: 500 });
    await publish();
    const worker = testWorker(t, clock);
    for (let i = 0; i < 12; i++) {
      await worker.runOnce();
      clock.advance(86_400_000 * 1.2);
      // Keep the streak young: the test is about the schedule, not about disabling.
      await t.runtime.db
        .updateTable('webhook_endpoints')
        .set({ failing_since: null })
        .where('id', '=', ep.id)
        .execute();
    }
    const log = await attempts(ep.id);
    assert.equal(log.length, 10);
    assert.equal(log[0].next_retry_at, null);
    const delivery = await t.runtime.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', ep.id)
      .executeTakeFirstOrThrow();
    assert.equal(delivery.status, 'failed');
    assert.equal(delivery.attempts, 10);
    await call('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
  });

  it('after a rotation signs with the new and the old secret for the overlap, then with the new only', async () => {
    const ep = await addEndpoint(call, `${receiver.url}/rotated`, ['course.published']);
    const rotated = await call('POST', `/api/v1/webhook-endpoints/${ep.id}/rotate-secret`);
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.notEqual(rotated.body.secret, ep.secret);
    assert.ok(rotated.body.previous_secret_expires_at);
    receiver.secrets = [rotated.body.secret, ep.secret];
    const worker = testWorker(t, clock);
    await publish();
    await worker.runOnce();
    assert.deepEqual(receiver.on('/rotated')[0].signedBy, [0, 1]);
    assert.equal(receiver.on('/rotated')[0].signatures.length, 2);
    clock.now = Date.parse(rotated.body.previous_secret_expires_at) + 1;
    await publish();
    await worker.runOnce();
    assert.deepEqual(receiver.on('/rotated')[1].signedBy, [0]);
    assert.equal(receiver.on('/rotated')[1].signatures.length, 1);
    await call('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
  });

  it('sends a test event to one endpoint only, and replays one event with its own id', async () => {
    const a = await addEndpoint(call, `${receiver.url}/a`, ['course.published']);
    const b = await addEndpoint(call, `${receiver.url}/b`, ['course.published']);
    const test = await call('POST', `/api/v1/webhook-endpoints/${a.id}/test`);
    assert.equal(test.status, 202);
    const worker = testWorker(t, clock);
    assert.equal(await worker.runOnce(), 1);
    assert.equal(receiver.on('/a')[0].json.type, 'webhook.test');
    assert.equal(receiver.on('/a')[0].id, test.body.event_id);
    assert.equal(receiver.on('/b').length, 0);
    await publish();
    await worker.runOnce();
    const original = receiver.on('/b')[0];
    const again = await call('POST', `/api/v1/webhook-endpoints/${b.id}/replay`, { event_id: original.id });
    assert.equal(again.status, 202);
    assert.deepEqual(again.body, { queued: 1 });
    await worker.runOnce();
    assert.equal(receiver.on('/b')[1].id, original.id);
    assert.equal(receiver.on('/b')[1].duplicate, true, 'the receiver can drop it by id');
    for (const id of [a.id, b.id]) await call('DELETE', `/api/v1/webhook-endpoints/${id}`);
  });

  it('a redirect, garbage, a huge body or a hanging endpoint never stalls the others', async () => {
    const fast = await createTestApp({ WEBHOOK_TIMEOUT_SECONDS: '1' });
    try {
      const s2 = await schoolFixture(fast);
      const call2 = api(fast, await s2.token());
      const eps = {
        redirect: await addEndpoint(call2, `${receiver.url}/redirect`),
        garbage: await addEndpoint(call2, `${receiver.url}/garbage`),
        huge: await addEndpoint(call2, `${receiver.url}/huge`),
        hang: await addEndpoint(call2, `${receiver.url}/hang`),
        fine: await addEndpoint(call2, `${receiver.url}/fine`),
      };
      receiver.plan('/redirect', { status: 302, headers: { location: 'http://169.254.169.254/' } });
      receiver.plan('/garbage', {
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: '\u0000<<<garbage',
      });
      receiver.plan('/huge', { status: 200, body: Buffer.alloc(8 * 1024 * 1024, 'x') });
      receiver.plan('/hang', { hang: true });
      await call2('POST', '/api/v1/courses', { slug: 'x', title: 'X', status: 'published' });
      const worker = testWorker(fast, clock);
      assert.equal(await worker.runOnce(), 5);
      const log = async (id: string) =>
        (await call2('GET', `/api/v1/webhook-endpoints/${id}/attempts`)).body.data[0];
      const redirect = await log(eps.redirect.id);
      assert.equal(redirect.status_code, 302);
      assert.match(redirect.error, /redirects are not followed/);
      assert.ok(redirect.next_retry_at);
      assert.equal(receiver.on('/').length, 0, 'the redirect was not followed');
      assert.equal((await log(eps.garbage.id)).status_code, 200);
      const huge = await log(eps.huge.id);
      assert.equal(huge.status_code, 200);
      assert.equal(huge.response_excerpt.length, 1024);
      const hang = await log(eps.hang.id);
      assert.equal(hang.status_code, null);
      assert.match(hang.error, /no answer within 1000 ms/);
      assert.equal((await log(eps.fine.id)).status_code, 204);
    } finally {
      await fast.close();
    }
  });
});
