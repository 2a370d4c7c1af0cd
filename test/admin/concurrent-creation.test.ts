import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import { ENGINE } from '../support/database.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { api } from './api.ts';

type Reply = Awaited<ReturnType<ReturnType<typeof api>>>;

/** How many replies had each status (and problem code), e.g. { '201': 1, '409 already_member': 19 }. */
function tally(replies: readonly Reply[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of replies) {
    const key = r.status >= 400 ? `${r.status} ${r.body?.code}` : String(r.status);
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

// createTestApp's request is in-process, but on PostgreSQL each request holds its own pooled
// connection and awaits the database, so the checks and inserts of parallel requests interleave.
describe(`admin API: concurrent creation of the same thing on ${ENGINE}`, () => {
  let t: TestApp;
  let s: SchoolFixture;
  let call: ReturnType<typeof api>;
  let n = 0;
  before(async () => {
    t = await createTestApp();
    s = await schoolFixture(t);
    call = api(t, await s.token());
  });
  after(() => t.close());

  const course = async () =>
    (await call('POST', '/api/v1/courses', { slug: `race-${++n}`, title: `Race ${n}` })).body.id as string;
  const rows = (table: 'users' | 'memberships' | 'enrollments', column: string, value: string) =>
    t.runtime.db
      .selectFrom(table)
      .selectAll()
      .where(column as never, '=', value as never)
      .execute();

  // Issue #16: an invite is an invitation now (no user, no membership until accepted); the race
  // is the same: of 20 parallel invites exactly one is made.
  it('20 parallel invites of one new email: exactly one 201 and 19 × 409 invitation_pending, one invitation, no user', async () => {
    const email = `crowd-${++n}@example.com`;
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => call('POST', '/api/v1/members', { email, roles: ['student'] })),
    );
    assert.deepEqual(tally(replies), { '201': 1, '409 invitation_pending': 19 });
    const made = replies.find((r) => r.status === 201)!.body.id;
    for (const r of replies.filter((r) => r.status === 409)) {
      assert.equal(r.headers.get('content-type'), 'application/problem+json');
      assert.equal(
        r.body.detail,
        `${email} already has a pending invitation (${made}); resend or revoke it instead.`,
      );
    }
    assert.equal((await rows('users', 'email', email)).length, 0);
    const invitations = await t.runtime.db
      .selectFrom('invitations')
      .select('id')
      .where('email', '=', email)
      .execute();
    assert.deepEqual(
      invitations.map((i) => i.id),
      [made],
    );
  });

  it('4 parallel enrollments of one member by email into 4 courses: all 201, no second membership', async () => {
    const email = `four-${++n}@example.com`;
    const userId = await s.person(['student'], email);
    const courses = [await course(), await course(), await course(), await course()];
    const replies = await Promise.all(
      courses.map((course_id) => call('POST', '/api/v1/enrollments', { course_id, email })),
    );
    assert.deepEqual(tally(replies), { '201': 4 });
    assert.deepEqual(new Set(replies.map((r) => r.body.user_id)), new Set([userId]));
    const memberships = await rows('memberships', 'user_id', userId);
    assert.deepEqual(
      memberships.map((m) => m.roles),
      ['["student"]'],
    );
    assert.deepEqual(
      (await rows('enrollments', 'user_id', userId)).map((e) => e.course_id).sort(),
      [...courses].sort(),
    );
  });

  it('6 parallel enrollments of one member by email into the same course: one 201, 5 × 409 already_enrolled', async () => {
    const email = `same-${++n}@example.com`;
    await s.person(['student'], email);
    const course_id = await course();
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => call('POST', '/api/v1/enrollments', { course_id, email })),
    );
    assert.deepEqual(tally(replies), { '201': 1, '409 already_enrolled': 5 });
  });

  it('an invite with courses and enrollments of the same new email at once: one invitation, nobody joined unasked', async () => {
    const email = `mixed-${++n}@example.com`;
    const courses = [await course(), await course(), await course()];
    const replies = await Promise.all([
      call('POST', '/api/v1/members', { email, roles: ['lecturer'], course_ids: courses }),
      ...courses.map((course_id) => call('POST', '/api/v1/enrollments', { course_id, email })),
    ]);
    const [invite, ...enrollments] = replies;
    assert.deepEqual(tally(enrollments), { '409 not_a_member': 3 });
    assert.equal(invite.status, 201, JSON.stringify(invite.body));
    assert.deepEqual(invite.body.course_ids, courses);
    assert.equal((await rows('users', 'email', email)).length, 0);
  });

  it('parallel creates with one slug or code: one 201, the rest 409 slug_taken / code_taken', async () => {
    const slug = `same-slug-${++n}`;
    const code = `SAME${n}`;
    const [courses, coupons, posts, pages] = await Promise.all([
      Promise.all(Array.from({ length: 5 }, () => call('POST', '/api/v1/courses', { slug, title: 'Same' }))),
      Promise.all(
        Array.from({ length: 5 }, () =>
          call('POST', '/api/v1/coupons', { code, kind: 'percent', percent_off: 5 }),
        ),
      ),
      Promise.all(
        Array.from({ length: 5 }, () => call('POST', '/api/v1/posts', { slug, title: 'Same', body: 'x' })),
      ),
      Promise.all(
        Array.from({ length: 5 }, () => call('POST', '/api/v1/pages', { slug, title: 'Same', blocks: [] })),
      ),
    ]);
    assert.deepEqual(tally(courses), { '201': 1, '409 slug_taken': 4 });
    assert.deepEqual(tally(coupons), { '201': 1, '409 code_taken': 4 });
    assert.deepEqual(tally(posts), { '201': 1, '409 slug_taken': 4 });
    assert.deepEqual(tally(pages), { '201': 1, '409 slug_taken': 4 });
  });

  it('parallel PATCHes replacing a course’s lecturers or a plan’s courses all succeed; one list wins whole', async () => {
    const lecturers = await Promise.all(
      [1, 2, 3, 4].map(
        async (i) => (await call('POST', '/api/v1/lecturers', { name: `L${i}` })).body.id as string,
      ),
    );
    const courseId = await course();
    const sets = [
      lecturers.slice(0, 2),
      lecturers.slice(1, 3),
      lecturers.slice(2, 4),
      [lecturers[0], lecturers[3]],
    ];
    const patched = await Promise.all(
      sets.map((lecturer_ids) => call('PATCH', `/api/v1/courses/${courseId}`, { lecturer_ids })),
    );
    assert.deepEqual(tally(patched), { '200': 4 });
    const final = (await call('GET', `/api/v1/courses/${courseId}`)).body.lecturers.map(
      (l: { id: string }) => l.id,
    );
    assert.ok(
      sets.some((set) => JSON.stringify(set) === JSON.stringify(final)),
      JSON.stringify(final),
    );

    const courseIds = [await course(), await course(), await course()];
    const plan = await call('POST', '/api/v1/membership-plans', {
      name: 'Race plan',
      interval: 'month',
      price_amount: 100,
      currency: 'EUR',
    });
    const planSets = [courseIds.slice(0, 2), courseIds.slice(1, 3), [courseIds[0], courseIds[2]], courseIds];
    const planPatched = await Promise.all(
      planSets.map((course_ids) => call('PATCH', `/api/v1/membership-plans/${plan.body.id}`, { course_ids })),
    );
    assert.deepEqual(tally(planPatched), { '200': 4 });
    const finalCourses = (await call('GET', `/api/v1/membership-plans/${plan.body.id}`)).body.courses.map(
      (c: { id: string }) => c.id,
    );
    assert.ok(
      planSets.some((set) => JSON.stringify([...set].sort()) === JSON.stringify([...finalCourses].sort())),
      JSON.stringify(finalCourses),
    );
  });

  it('parallel sections and lectures added to one course: all 201, numbered 1..n without gaps or twins', async () => {
    const courseId = await course();
    const sections = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call('POST', `/api/v1/courses/${courseId}/sections`, {
          title: `S${i}`,
          ...(i % 2 ? { position: 1 } : {}),
        }),
      ),
    );
    assert.deepEqual(tally(sections), { '201': 6 });
    const sectionId = sections[0].body.id;
    const lectures = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call('POST', `/api/v1/sections/${sectionId}/lectures`, {
          title: `L${i}`,
          type: 'text',
          ...(i % 2 ? { position: 1 } : {}),
        }),
      ),
    );
    assert.deepEqual(tally(lectures), { '201': 6 });
    const outline = (await call('GET', `/api/v1/courses/${courseId}/curriculum`)).body;
    assert.deepEqual(
      outline.sections.map((x: { position: number }) => x.position),
      [1, 2, 3, 4, 5, 6],
    );
    const section = outline.sections.find((x: { id: string }) => x.id === sectionId);
    assert.deepEqual(
      section.lectures.map((x: { position: number }) => x.position),
      [1, 2, 3, 4, 5, 6],
    );
  });

  it('parallel lecturer profiles for one member: one 201, the rest 409 lecturer_exists', async () => {
    const userId = await s.person(['lecturer']);
    const replies = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        call('POST', '/api/v1/lecturers', { name: `Twin ${i}`, user_id: userId }),
      ),
    );
    assert.deepEqual(tally(replies), { '201': 1, '409 lecturer_exists': 4 });
  });
});
