import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InsufficientScopeError } from '@modelcontextprotocol/client';
import { issueTestToken } from '../support/tokens.ts';
import { type Seeded, seedSchool } from '../support/world-mcp.ts';
import { connectClient, type LiveApp, startLiveApp } from './harness.ts';

const PUBLIC_TOOLS = [
  'get_course_outline',
  'how_to_authenticate',
  'list_schools',
  'list_upcoming_events',
  'search_courses',
];
const MEMBER_READ = ['my_course_progress', 'my_courses', 'my_event_registrations', 'my_orders'];
const MEMBER_WRITE = ['cancel_event_registration', 'record_progress', 'register_for_event'];

type Text = Array<{ type: string; text: string }>;

describe('MCP member tools', () => {
  let live: LiveApp;
  let seeded: Seeded;
  let readToken: string;
  let writeToken: string;
  before(async () => {
    live = await startLiveApp();
    seeded = await seedSchool(live.t);
    const member = { userId: seeded.studentId, schoolId: seeded.schoolId, audience: 'member' as const };
    readToken = (await issueTestToken(live.t, { ...member, scopes: ['openid', 'account:read'] })).token;
    writeToken = (
      await issueTestToken(live.t, { ...member, scopes: ['openid', 'account:read', 'account:write'] })
    ).token;
  });
  after(() => live.close());

  for (const modern of [false, true]) {
    it(`account:read lists the public and member read tools, not the writes (${modern ? '2026' : '2025'} era)`, async () => {
      const { client } = await connectClient(live, { token: readToken, modern });
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [...PUBLIC_TOOLS, ...MEMBER_READ].sort());
      await client.close();
    });
  }

  it('account:write adds record_progress, register_for_event and cancel_event_registration with write hints', async () => {
    const { client } = await connectClient(live, { token: writeToken });
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name).sort(),
      [...PUBLIC_TOOLS, ...MEMBER_READ, ...MEMBER_WRITE].sort(),
    );
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    assert.deepEqual(
      [
        hints.record_progress?.readOnlyHint,
        hints.record_progress?.destructiveHint,
        hints.record_progress?.idempotentHint,
      ],
      [false, false, true],
    );
    assert.deepEqual(
      [hints.cancel_event_registration?.readOnlyHint, hints.cancel_event_registration?.destructiveHint],
      [false, true],
    );
    await client.close();
  });

  it("my_courses, my_orders and my_event_registrations read the token's member at the token's school", async () => {
    const { client } = await connectClient(live, { token: readToken });
    const courses = await client.callTool({ name: 'my_courses', arguments: {} });
    const c = courses.structuredContent as { enrollments: Array<Record<string, unknown>>; nextCursor: null };
    assert.equal(c.enrollments.length, 1);
    assert.deepEqual(c.enrollments[0].course, {
      id: seeded.publishedCourseId,
      slug: 'intro-to-typescript',
      title: 'Intro to TypeScript',
    });
    assert.equal(c.enrollments[0].hasLifetimeAccess, true);
    assert.equal(c.enrollments[0].lastWatchedLecture, null);
    assert.match((courses.content as Text)[0].text, /^You are enrolled in 1 course\(s\)\./);

    const orders = await client.callTool({ name: 'my_orders', arguments: {} });
    const o = orders.structuredContent as { orders: Array<Record<string, unknown>> };
    assert.equal(o.orders.length, 1);
    assert.equal(o.orders[0].totalAmount, 4900);
    assert.equal(o.orders[0].currency, 'EUR');
    assert.deepEqual(o.orders[0].items, [
      {
        productType: 'course',
        productId: seeded.publishedCourseId,
        title: 'Intro to TypeScript',
        quantity: 1,
        unitAmount: 4900,
        totalAmount: 4900,
      },
    ]);

    const regs = await client.callTool({ name: 'my_event_registrations', arguments: {} });
    const r = regs.structuredContent as {
      registrations: Array<{ status: string; event: Record<string, unknown> }>;
    };
    assert.equal(r.registrations.length, 1);
    assert.equal(r.registrations[0].status, 'registered');
    assert.equal(r.registrations[0].event.title, 'Live Q&A');
    assert.equal(r.registrations[0].event.onlineUrl, 'https://meet.example/secret-room');
    await client.close();
  });

  it("record_progress and register_for_event change the member's data, seen by the read tools", async () => {
    const { client } = await connectClient(live, { token: writeToken, modern: true });
    const rec = await client.callTool({
      name: 'record_progress',
      arguments: { lectureId: seeded.lectureIds[0], positionSeconds: 300, completed: true },
    });
    assert.equal(rec.isError, undefined, JSON.stringify(rec));
    const out = rec.structuredContent as {
      enrollment: Record<string, unknown>;
      lecture: Record<string, unknown>;
    };
    assert.equal(out.lecture.completed, true);
    assert.equal(out.enrollment.progressPercent, 33);
    assert.deepEqual(
      (out.enrollment.lastWatchedLecture as Record<string, unknown>).lectureId,
      seeded.lectureIds[0],
    );

    const progress = await client.callTool({
      name: 'my_course_progress',
      arguments: { course: 'intro-to-typescript' },
    });
    const p = progress.structuredContent as {
      sections: Array<{ lectures: Array<{ id: string; completed: boolean }> }>;
    };
    assert.deepEqual(
      p.sections.flatMap((s) => s.lectures.map((l) => [l.id, l.completed])),
      [
        [seeded.lectureIds[0], true],
        [seeded.lectureIds[1], false],
        [seeded.lectureIds[2], false],
      ],
    );

    const reg = await client.callTool({
      name: 'register_for_event',
      arguments: { eventId: seeded.secondEventId },
    });
    assert.equal(reg.isError, undefined, JSON.stringify(reg));
    assert.equal(
      (reg.structuredContent as { registration: { status: string } }).registration.status,
      'registered',
    );
    const again = await client.callTool({
      name: 'register_for_event',
      arguments: { eventId: seeded.secondEventId },
    });
    assert.equal(again.isError, undefined, 'registering twice is harmless');

    const cancel = await client.callTool({
      name: 'cancel_event_registration',
      arguments: { eventId: seeded.secondEventId },
    });
    assert.equal(
      (cancel.structuredContent as { registration: { status: string } }).registration.status,
      'canceled',
    );
    const twice = await client.callTool({
      name: 'cancel_event_registration',
      arguments: { eventId: seeded.secondEventId },
    });
    assert.equal(twice.isError, true);
    assert.match(
      (twice.content as Text)[0].text,
      /Conflict \(not_registered\): You are not registered for this event\./,
    );
    await client.close();
  });

  it('domain refusals are tool errors with the reason: unknown lecture, course not enrolled', async () => {
    const { client } = await connectClient(live, { token: writeToken });
    const lecture = await client.callTool({
      name: 'record_progress',
      arguments: { lectureId: 'lec_nope', positionSeconds: 1 },
    });
    assert.equal(lecture.isError, true);
    assert.match((lecture.content as Text)[0].text, /not_found|lecture_not_found/);
    const course = await client.callTool({
      name: 'my_course_progress',
      arguments: { course: 'secret-draft' },
    });
    assert.equal(course.isError, true);
    assert.match((course.content as Text)[0].text, /You are not enrolled in a course "secret-draft"/);
    await client.close();
  });

  it('a write tool with a read-only token is refused with 403 insufficient_scope naming account:write', async () => {
    const { client } = await connectClient(live, { token: readToken });
    await assert.rejects(
      client.callTool({
        name: 'record_progress',
        arguments: { lectureId: seeded.lectureIds[0], positionSeconds: 5 },
      }),
      (err: unknown) => {
        assert.ok(err instanceof InsufficientScopeError, String(err));
        assert.equal(err.requiredScope, 'account:write');
        assert.equal(
          String(err.resourceMetadataUrl),
          `${live.baseUrl}/.well-known/oauth-protected-resource/mcp`,
        );
        return true;
      },
    );
    await client.close();
  });

  it("a member token of another school sees none of this school's member data", async () => {
    const { addRoles } = await import('../../src/domain/school/memberships.ts');
    await addRoles(live.t.runtime.db, seeded.otherSchoolId, seeded.studentId, ['student']);
    const { token } = await issueTestToken(live.t, {
      userId: seeded.studentId,
      schoolId: seeded.otherSchoolId,
      audience: 'member',
      scopes: ['account:read', 'account:write'],
      clientId: 'test-client-member-other',
    });
    const { client } = await connectClient(live, { token });
    const courses = await client.callTool({ name: 'my_courses', arguments: {} });
    assert.deepEqual((courses.structuredContent as { enrollments: unknown[] }).enrollments, []);
    const reg = await client.callTool({
      name: 'register_for_event',
      arguments: { eventId: seeded.upcomingEventId },
    });
    assert.equal(reg.isError, true);
    assert.match((reg.content as Text)[0].text, /Not Found/);
    await client.close();
  });
});
