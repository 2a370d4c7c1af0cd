import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runHousekeeping } from '../../src/background.ts';
import { loadConfig } from '../../src/config.ts';
import { newId } from '../../src/crypto/ids.ts';
import { hashPassword } from '../../src/crypto/passwords.ts';
import { createLecture, createSection } from '../../src/domain/catalog/curriculum.ts';
import { recordExpiredEnrollments } from '../../src/domain/learning/enrollment-expiry.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { gql } from '../account/graphql.ts';
import { api } from '../admin/api.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { Browser, signIn } from '../support/oauth-flow.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';

/** Issue #13 point 1 and 2: domain events in the change's transaction, read as an audit trail. */
describe('domain events and the audit trail', () => {
  let t: TestApp;
  let a: SchoolFixture;
  let b: SchoolFixture;
  let callA: ReturnType<typeof api>;
  let callB: ReturnType<typeof api>;
  before(async () => {
    t = await createTestApp();
    a = await schoolFixture(t, 'Alpha');
    b = await schoolFixture(t, 'Beta');
    callA = api(t, await a.token());
    callB = api(t, await b.token());
  });
  after(() => t.close());

  const trail = async (call: ReturnType<typeof api>, query = '') => {
    const r = await call('GET', `/api/v1/audit-events${query}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies under test
    return r.body as { data: any[]; next_cursor: string | null };
  };

  it('records who did it, through which client, in which request, with a small data object', async () => {
    const r = await callA('POST', '/api/v1/courses', { slug: 'ink', title: 'Ink', status: 'published' });
    assert.equal(r.status, 201);
    const page = await trail(callA, '?type=course.published');
    assert.equal(page.data.length, 1);
    assert.deepEqual(page.data[0], {
      id: page.data[0].id,
      type: 'course.published',
      actor: { type: 'user', id: a.ownerId, client_id: 'test-client-operator' },
      occurred_at: page.data[0].occurred_at,
      data: { course_id: r.body.id, slug: 'ink', status: 'published' },
      request_id: r.headers.get('x-request-id'),
    });
    assert.match(page.data[0].id, /^evt_[0-9a-z]{26}$/);
    const unpublish = await callA('PATCH', `/api/v1/courses/${r.body.id}`, { status: 'draft' });
    assert.equal(unpublish.status, 200);
    const both = await trail(callA, '?type=course.published,course.unpublished');
    assert.deepEqual(
      both.data.map((e) => e.type),
      ['course.unpublished', 'course.published'],
      'newest first',
    );
  });

  it('writes an event exactly when its change commits: a refused change leaves none', async () => {
    const course = await callA('POST', '/api/v1/courses', { slug: 'tx', title: 'Tx', status: 'published' });
    const student = await a.person(['student']);
    const first = await callA('POST', '/api/v1/enrollments', { user_id: student, course_id: course.body.id });
    assert.equal(first.status, 201);
    const again = await callA('POST', '/api/v1/enrollments', { user_id: student, course_id: course.body.id });
    assert.equal(again.status, 409);
    const events = (await trail(callA, '?type=enrollment.created&limit=100')).data.filter(
      (e) => e.data.course_id === course.body.id,
    );
    assert.equal(events.length, 1);
    assert.equal(events[0].data.enrollment_id, first.body.id);
    assert.equal(events[0].data.user_id, student);
  });

  it('progress events carry the course progress and resume position; completion adds its events', async () => {
    const course = await callA('POST', '/api/v1/courses', {
      slug: 'prog',
      title: 'Prog',
      status: 'published',
    });
    const section = await createSection(t.runtime.db, a.schoolId, course.body.id, { title: 'S' });
    const l1 = await createLecture(t.runtime.db, a.schoolId, section.id, {
      title: 'One',
      type: 'text',
      body: 'x',
    });
    const l2 = await createLecture(t.runtime.db, a.schoolId, section.id, {
      title: 'Two',
      type: 'text',
      body: 'y',
    });
    const student = await a.person(['student']);
    const enr = await callA('POST', '/api/v1/enrollments', { user_id: student, course_id: course.body.id });
    const member = await a.token(['openid', 'account:read', 'account:write'], 'member', student);
    const record = (lectureId: string, positionSeconds: number, completed: boolean) =>
      gql(
        t,
        member,
        'mutation($i: RecordLectureProgressInput!) { recordLectureProgress(input: $i) { lectureProgress { completed } } }',
        {
          i: { lectureId, positionSeconds, completed },
        },
      );
    assert.equal((await record(l1.id, 30, false)).status, 200);
    assert.equal((await record(l1.id, 60, true)).status, 200);
    assert.equal((await record(l1.id, 61, true)).status, 200, 'a second completion is no new completion');
    assert.equal((await record(l2.id, 5, true)).status, 200);
    const events = (await trail(callA, '?limit=100')).data
      .filter((e) => e.data.enrollment_id === enr.body.id)
      .reverse();
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'enrollment.created',
        'lecture.progress_recorded',
        'lecture.progress_recorded',
        'lecture.completed',
        'lecture.progress_recorded',
        'lecture.progress_recorded',
        'lecture.completed',
        'enrollment.completed',
      ],
    );
    const completed = events[3];
    assert.deepEqual(completed.data, {
      enrollment_id: enr.body.id,
      user_id: student,
      course_id: course.body.id,
      lecture_id: l1.id,
      position_seconds: 60,
      lecture_completed: true,
      progress_percent: 50,
      resume_lecture_id: l1.id,
      resume_position_seconds: 60,
    });
    assert.equal(completed.actor.id, student, 'the member recorded it');
    assert.equal(events[7].data.progress_percent, 100);
  });

  it('never shows one school another school’s events, by list, filter or cursor', async () => {
    await callB('POST', '/api/v1/courses', { slug: 'beta', title: 'Beta', status: 'published' });
    const bEvents = await trail(callB, '?limit=100');
    assert.ok(bEvents.data.length > 0);
    assert.ok(bEvents.data.every((e) => e.data.slug !== 'ink' && e.data.slug !== 'prog'));
    const byActorA = await trail(callB, `?actor_id=${a.ownerId}`);
    assert.deepEqual(byActorA.data, []);
    const aPage = await trail(callA, '?limit=1');
    assert.ok(aPage.next_cursor);
    const foreign = await callB('GET', `/api/v1/audit-events?cursor=${aPage.next_cursor}`);
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.code, 'invalid_cursor');
  });

  it('pages by cursor and filters by actor and time range', async () => {
    const p1 = await trail(callA, '?limit=2');
    assert.equal(p1.data.length, 2);
    const p2 = await trail(callA, `?limit=2&cursor=${p1.next_cursor}`);
    assert.ok(p2.data[0].id < p1.data[1].id, 'the next page continues older');
    const system = await trail(callA, '?actor_type=system&limit=100');
    assert.ok(system.data.every((e) => e.actor.type === 'system'));
    const future = await trail(callA, '?from=2999-01-01T00:00:00Z');
    assert.deepEqual(future.data, []);
    const owner = await trail(callA, `?actor_id=${a.ownerId}&limit=100`);
    assert.ok(owner.data.length > 0 && owner.data.every((e) => e.actor.id === a.ownerId));
  });

  it('refuses bad filters with a problem listing each field, and needs school:read', async () => {
    const bad = await callA(
      'GET',
      '/api/v1/audit-events?type=course.exploded&actor_type=robot&from=yesterday',
    );
    assert.equal(bad.status, 422);
    assert.equal(bad.headers.get('content-type'), 'application/problem+json');
    assert.equal(bad.body.code, 'validation_failed');
    assert.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), [
      'query.actor_type',
      'query.from',
      'query.type',
    ]);
    const backwards = await callA(
      'GET',
      '/api/v1/audit-events?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
    );
    assert.equal(backwards.status, 422);
    const coursesOnly = api(t, await a.token(['courses:read']));
    const refused = await coursesOnly('GET', '/api/v1/audit-events');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'insufficient_scope');
    const reader = api(t, await a.token(['school:read']));
    assert.equal((await reader('GET', '/api/v1/audit-events')).status, 200);
  });

  it('records an expiry once, when housekeeping sees it pass (the system is the actor)', async () => {
    const course = await callA('POST', '/api/v1/courses', { slug: 'exp', title: 'Exp', status: 'published' });
    const student = await a.person(['student']);
    const now = Date.now();
    await recordExpiredEnrollments(t.runtime.db, now); // the first sweep only sets its mark
    const enr = await callA('POST', '/api/v1/enrollments', {
      user_id: student,
      course_id: course.body.id,
      expires_at: new Date(now + 60_000).toISOString(),
    });
    assert.equal(enr.status, 201, JSON.stringify(enr.body));
    assert.equal(await recordExpiredEnrollments(t.runtime.db, now + 30_000), 0);
    assert.equal(await recordExpiredEnrollments(t.runtime.db, now + 120_000), 1);
    assert.equal(await recordExpiredEnrollments(t.runtime.db, now + 240_000), 0, 'never twice');
    const expired = (await trail(callA, '?type=enrollment.expired')).data;
    assert.equal(expired.length, 1);
    assert.equal(expired[0].data.enrollment_id, enr.body.id);
    assert.deepEqual(expired[0].actor, { type: 'system', id: null, client_id: null });
  });

  it('housekeeping prunes events beyond the retention, with their deliveries, and keeps the rest', async () => {
    const day = 86_400_000;
    const old = newId('evt', Date.now() - 401 * day);
    await t.runtime.db
      .insertInto('domain_events')
      .values({
        id: old,
        school_id: a.schoolId,
        type: 'course.published',
        actor_type: 'system',
        actor_id: null,
        actor_client_id: null,
        occurred_at: new Date(Date.now() - 401 * day).toISOString(),
        data: '{}',
        request_id: null,
        fan_out: 0,
      })
      .execute();
    const before = (await trail(callA, '?limit=100')).data.length;
    const done = await runHousekeeping(t.runtime.db, { ...t.config, events: { retentionDays: 400 } });
    assert.equal(done.events.pruned, 1);
    const after = (await trail(callA, '?limit=100')).data;
    assert.equal(after.length, before - 1);
    assert.ok(after.every((e) => e.id !== old));
    assert.equal(loadConfig({ EVENT_RETENTION_DAYS: '30' }).events.retentionDays, 30);
    assert.throws(() => loadConfig({ EVENT_RETENTION_DAYS: '0' }), /EVENT_RETENTION_DAYS/);
  });

  it('failed and throttled sign-ins are the account’s, never written into a school’s audit trail', async () => {
    const user = await createUser(t.runtime.db, {
      email: 'mira@example.com',
      name: 'Mira',
      passwordHash: await hashPassword('correct horse battery'),
    });
    await addRoles(t.runtime.db, a.schoolId, user.id, ['student']);
    const before = (await trail(callA, '?limit=100')).data.length;
    const browser = new Browser(t);
    for (let i = 0; i < 6; i++) await signIn(browser, 'mira@example.com', { password: 'wrong password' });
    assert.equal((await trail(callA, '?limit=100')).data.length, before);
    const filtered = await callA('GET', '/api/v1/audit-events?type=login.failed');
    assert.equal(filtered.status, 422);
  });
});
