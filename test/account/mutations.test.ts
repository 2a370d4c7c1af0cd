import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type AccountFixture, seedAccountFixture } from '../support/world-account.ts';
import { gql } from './graphql.ts';

describe('Account API mutations (account:write; typed errors in extensions.code)', () => {
  let t: TestApp;
  let f: AccountFixture;
  let token: string;
  before(async () => {
    t = await createTestApp();
    f = await seedAccountFixture(t);
    token = await f.token(['openid', 'account:read', 'account:write']);
  });
  after(() => t.close());

  const RECORD = `mutation($input: RecordLectureProgressInput!) {
    recordLectureProgress(input: $input) {
      enrolledCourse { id progressPercent completedAt lastWatchedLecture { lectureId positionSeconds } }
      lectureProgress { positionSeconds completed completedAt }
    }
  }`;

  it('records lecture progress: position, completion, course percent and last watched lecture', async () => {
    const res = await gql(t, token, RECORD, {
      input: { lectureId: f.lectures.second, positionSeconds: 120, completed: true },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const out = res.body.data.recordLectureProgress;
    assert.deepEqual(out.enrolledCourse, {
      id: f.enrollments.lifetime,
      progressPercent: 66,
      completedAt: null,
      lastWatchedLecture: { lectureId: f.lectures.second, positionSeconds: 120 },
    });
    assert.equal(out.lectureProgress.positionSeconds, 120);
    assert.equal(out.lectureProgress.completed, true);
    const stored = await t.runtime.db
      .selectFrom('lecture_progress')
      .selectAll()
      .where('enrollment_id', '=', f.enrollments.lifetime)
      .where('lecture_id', '=', f.lectures.second)
      .executeTakeFirstOrThrow();
    assert.equal(stored.position_seconds, 120);
    assert.equal(stored.completed_at, out.lectureProgress.completedAt);
    const enrollment = await t.runtime.db
      .selectFrom('enrollments')
      .selectAll()
      .where('id', '=', f.enrollments.lifetime)
      .executeTakeFirstOrThrow();
    assert.equal(enrollment.progress_percent, 66);
    assert.equal(enrollment.last_lecture_id, f.lectures.second);
  });

  it('a later read in the same document sees the write (loaders are reset after mutations)', async () => {
    const res = await gql(
      t,
      token,
      `mutation {
        a: recordLectureProgress(input: { lectureId: "${f.lectures.first}", positionSeconds: 10 }) {
          enrolledCourse { lastWatchedLecture { positionSeconds } }
        }
        b: updateViewerName(name: "  Samantha  ") { name }
        c: updateViewerName(name: "Sam Student") { name email }
      }`,
    );
    assert.deepEqual(res.body, {
      data: {
        a: { enrolledCourse: { lastWatchedLecture: { positionSeconds: 10 } } },
        b: { name: 'Samantha' },
        c: { name: 'Sam Student', email: 'sam@example.com' },
      },
    });
  });

  it('NOT_ENROLLED, ACCESS_EXPIRED, NOT_FOUND and BAD_USER_INPUT for lecture progress', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ lectureId: f.lectures.classmateOnly, positionSeconds: 1 }, 'NOT_ENROLLED'],
      [{ lectureId: f.lectures.expired, positionSeconds: 1 }, 'ACCESS_EXPIRED'],
      [{ lectureId: 'lec_00000000000000000000000000', positionSeconds: 1 }, 'NOT_FOUND'],
      [{ lectureId: f.lectures.first, positionSeconds: -5 }, 'BAD_USER_INPUT'],
    ];
    for (const [input, code] of cases) {
      const res = await gql(t, token, RECORD, { input });
      assert.equal(res.status, 200, code);
      assert.deepEqual(res.body.data, { recordLectureProgress: null }, code);
      assert.equal(res.body.errors?.length, 1, code);
      assert.equal(res.body.errors?.[0].extensions?.code, code);
      assert.deepEqual(res.body.errors?.[0].path, ['recordLectureProgress']);
    }
    const none = await t.runtime.db
      .selectFrom('lecture_progress')
      .select('lecture_id')
      .where('lecture_id', 'in', [f.lectures.classmateOnly, f.lectures.expired])
      .execute();
    assert.deepEqual(none, []);
  });

  it('registers for an event and cancels; registering twice answers the same registration', async () => {
    const REGISTER = `mutation($id: ID!) { registerForEvent(eventId: $id) { id status event { id title } } }`;
    const first = await gql(t, token, REGISTER, { id: f.events.canceled.replace(/.$/, '') });
    assert.equal(first.body.errors?.[0].extensions?.code, 'NOT_FOUND');
    const pastEventId = f.events.past;
    const a = await gql(t, token, REGISTER, { id: f.events.open });
    assert.equal(a.body.data.registerForEvent.status, 'REGISTERED');
    const cancel = await gql(
      t,
      token,
      `mutation { cancelEventRegistration(eventId: "${f.events.open}") { id status canceledAt } }`,
    );
    assert.equal(cancel.body.data.cancelEventRegistration.id, a.body.data.registerForEvent.id);
    assert.equal(cancel.body.data.cancelEventRegistration.status, 'CANCELED');
    const row = await t.runtime.db
      .selectFrom('event_registrations')
      .selectAll()
      .where('id', '=', a.body.data.registerForEvent.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'canceled');
    assert.equal(row.canceled_at, cancel.body.data.cancelEventRegistration.canceledAt);
    // The joining link is for people holding a seat: hidden on the canceled registration, here
    // as in the member tools (domain/member/member-account.ts, eventOfRegistration).
    const seen = await gql(
      t,
      token,
      `mutation { cancelEventRegistration(eventId: "${f.events.open}") { status event { onlineUrl } } }`,
    );
    assert.deepEqual(seen.body.errors?.[0].extensions?.code, 'NOT_REGISTERED');
    const listed = await gql(
      t,
      token,
      '{ viewer { eventRegistrations(first: 10) { nodes { id status event { onlineUrl } } } } }',
    );
    const mine = listed.body.data.viewer.eventRegistrations.nodes.find(
      (n: { id: string }) => n.id === a.body.data.registerForEvent.id,
    );
    assert.deepEqual(mine, {
      id: a.body.data.registerForEvent.id,
      status: 'CANCELED',
      event: { onlineUrl: null },
    });
    const again = await gql(t, token, REGISTER, { id: f.events.open });
    const twice = await gql(t, token, REGISTER, { id: f.events.open });
    assert.equal(again.body.data.registerForEvent.status, 'REGISTERED');
    assert.deepEqual(twice.body.data, again.body.data);
    const past = await gql(t, token, REGISTER, { id: pastEventId });
    assert.equal(past.body.errors?.[0].extensions?.code, 'EVENT_ENDED');
  });

  it('EVENT_FULL and EVENT_CANCELED; canceling without a registration is NOT_REGISTERED', async () => {
    const register = (id: string) => gql(t, token, `mutation { registerForEvent(eventId: "${id}") { id } }`);
    const full = await register(f.events.full);
    assert.deepEqual(full.body.data, { registerForEvent: null });
    assert.deepEqual(full.body.errors?.[0].extensions, { code: 'EVENT_FULL' });
    assert.equal(full.body.errors?.[0].message, 'All 1 places of this event are taken.');
    const canceled = await register(f.events.canceled);
    assert.equal(canceled.body.errors?.[0].extensions?.code, 'EVENT_CANCELED');
    const cancel = await gql(
      t,
      token,
      `mutation { cancelEventRegistration(eventId: "${f.events.full}") { id } }`,
    );
    assert.equal(cancel.body.errors?.[0].extensions?.code, 'NOT_REGISTERED');
    const rows = await t.runtime.db
      .selectFrom('event_registrations')
      .select('user_id')
      .where('event_id', 'in', [f.events.full, f.events.canceled])
      .execute();
    assert.deepEqual(
      rows.map((r) => r.user_id),
      [f.classmate],
    );
  });

  it('renames the viewer; an empty or overlong name is BAD_USER_INPUT with the field named', async () => {
    const ok = await gql(t, token, 'mutation { updateViewerName(name: "Sam S.") { id name } }');
    assert.deepEqual(ok.body, { data: { updateViewerName: { id: f.student, name: 'Sam S.' } } });
    const stored = await t.runtime.db
      .selectFrom('users')
      .select('name')
      .where('id', '=', f.student)
      .executeTakeFirst();
    assert.equal(stored?.name, 'Sam S.');
    for (const name of ['   ', 'x'.repeat(201)]) {
      const res = await gql(t, token, 'mutation($n: String!) { updateViewerName(name: $n) { name } }', {
        n: name,
      });
      assert.deepEqual(res.body.data, { updateViewerName: null });
      assert.deepEqual(res.body.errors?.[0].extensions, {
        code: 'BAD_USER_INPUT',
        fields: [{ field: 'name', message: 'must be a non-empty string of at most 200 characters' }],
      });
    }
  });
});
