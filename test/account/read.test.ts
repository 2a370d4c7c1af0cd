import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeCursor } from '../../src/domain/kernel/pagination.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type AccountFixture, seedAccountFixture } from '../support/world-account.ts';
import { gql } from './graphql.ts';

const SPEC_QUERY = `{
  viewer {
    id
    email
    enrolledCourses(first: 10) {
      nodes { slug expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } }
    }
  }
}`;

describe('Account API reads (spec §2.5, product.md §6)', () => {
  let t: TestApp;
  let f: AccountFixture;
  let token: string;
  before(async () => {
    t = await createTestApp();
    f = await seedAccountFixture(t);
    token = await f.token(['openid', 'account:read']);
  });
  after(() => t.close());

  it('answers the spec §2.5 query with the member’s own enrollments, each field as stored', async () => {
    const res = await gql(t, token, SPEC_QUERY);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const rows = await t.runtime.db
      .selectFrom('enrollments')
      .innerJoin('courses', 'courses.id', 'enrollments.course_id')
      .select([
        'courses.slug',
        'enrollments.expires_at',
        'enrollments.last_lecture_id',
        'enrollments.last_position_seconds',
      ])
      .where('enrollments.school_id', '=', f.schoolA)
      .where('enrollments.user_id', '=', f.student)
      .orderBy('enrollments.id')
      .execute();
    const user = await t.runtime.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', f.student)
      .executeTakeFirstOrThrow();
    assert.deepEqual(res.body, {
      data: {
        viewer: {
          id: user.id,
          email: user.email,
          enrolledCourses: {
            nodes: rows.map((r) => ({
              slug: r.slug,
              expireDate: r.expires_at,
              hasLifetimeAccess: r.expires_at === null,
              lastWatchedLecture: r.last_lecture_id
                ? { lectureId: r.last_lecture_id, positionSeconds: r.last_position_seconds }
                : null,
            })),
          },
        },
      },
    });
    // The fixture's shape, so the comparison above is not vacuous.
    assert.deepEqual(
      rows.map((r) => r.slug),
      ['intro-to-ink', 'paper-folding', 'old-course'],
    );
    assert.equal(rows[0].expires_at, null);
    assert.equal(rows[0].last_lecture_id, f.lectures.second);
    assert.equal(rows[0].last_position_seconds, 42);
  });

  it('viewer profile, roles and school', async () => {
    const res = await gql(
      t,
      token,
      '{ viewer { id name email roles school { id name subdomain currency } } }',
    );
    assert.deepEqual(res.body, {
      data: {
        viewer: {
          id: f.student,
          name: 'Sam Student',
          email: 'sam@example.com',
          roles: ['student'],
          school: { id: f.schoolA, name: 'Alpha Academy', subdomain: 'alpha', currency: 'USD' },
        },
      },
    });
  });

  it('enrolled course details: progress, completion, access and the course tree with lecture progress', async () => {
    const res = await gql(
      t,
      token,
      `{ viewer { enrolledCourses(first: 1) { nodes {
        id slug title progressPercent completedAt hasAccess hasLifetimeAccess
        lastWatchedLecture { lectureId positionSeconds watchedAt }
        course { id slug title description lectureCount sections { title position lectures {
          id title type durationSeconds isFreePreview position body videoUrl
          progress { positionSeconds completed completedAt }
        } } }
      } } } }`,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const node = res.body.data.viewer.enrolledCourses.nodes[0];
    const stored = await t.runtime.db
      .selectFrom('enrollments')
      .selectAll()
      .where('id', '=', f.enrollments.lifetime)
      .executeTakeFirstOrThrow();
    assert.equal(node.id, f.enrollments.lifetime);
    assert.equal(node.slug, 'intro-to-ink');
    assert.equal(node.title, 'Intro to Ink');
    assert.equal(node.progressPercent, 33); // 1 of 3 lectures completed
    assert.equal(node.progressPercent, stored.progress_percent);
    assert.equal(node.completedAt, null);
    assert.equal(node.hasAccess, true);
    assert.deepEqual(node.lastWatchedLecture, {
      lectureId: f.lectures.second,
      positionSeconds: 42,
      watchedAt: stored.last_watched_at,
    });
    assert.equal(node.course.id, f.courses.lifetime);
    assert.equal(node.course.description, 'About Intro to Ink');
    assert.equal(node.course.lectureCount, 3);
    assert.deepEqual(
      node.course.sections.map((s: { title: string; position: number }) => [s.title, s.position]),
      [
        ['Basics', 1],
        ['Practice', 2],
      ],
    );
    const [welcome, tools] = node.course.sections[0].lectures;
    assert.deepEqual(welcome, {
      id: f.lectures.first,
      title: 'Welcome',
      type: 'VIDEO',
      durationSeconds: 300,
      isFreePreview: false,
      position: 1,
      body: null,
      videoUrl: 'https://video.example.com/welcome.mp4',
      progress: { positionSeconds: 300, completed: true, completedAt: welcome.progress.completedAt },
    });
    assert.match(welcome.progress.completedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(tools.progress, { positionSeconds: 42, completed: false, completedAt: null });
    assert.equal(tools.body, 'Pens and nibs.');
    assert.equal(node.course.sections[1].lectures[0].progress, null);
  });

  it('expired access: listed with hasAccess false; content hidden except free previews', async () => {
    const res = await gql(
      t,
      token,
      `{ viewer { enrolledCourses(filter: { state: EXPIRED }) { totalCount nodes {
        slug hasAccess hasLifetimeAccess expireDate course { sections { lectures { title isFreePreview body } } }
      } } } }`,
    );
    const conn = res.body.data.viewer.enrolledCourses;
    assert.equal(conn.totalCount, 1);
    const [node] = conn.nodes;
    assert.equal(node.slug, 'old-course');
    assert.equal(node.hasAccess, false);
    assert.equal(node.hasLifetimeAccess, false);
    assert.ok(node.expireDate < new Date().toISOString());
    assert.deepEqual(node.course.sections[0].lectures, [
      { title: 'Free taste', isFreePreview: true, body: 'Free for all.' },
      { title: 'Paid part', isFreePreview: false, body: null },
    ]);
  });

  it('filters by state', async () => {
    const slugs = async (state: string) =>
      (
        await gql(t, token, `{ viewer { enrolledCourses(filter: { state: ${state} }) { nodes { slug } } } }`)
      ).body.data.viewer.enrolledCourses.nodes.map((n: { slug: string }) => n.slug);
    assert.deepEqual(await slugs('ACTIVE'), ['intro-to-ink', 'paper-folding']);
    assert.deepEqual(await slugs('IN_PROGRESS'), ['intro-to-ink']);
    assert.deepEqual(await slugs('NOT_STARTED'), ['paper-folding', 'old-course']);
    assert.deepEqual(await slugs('COMPLETED'), []);
  });

  it('pages with first/after: edges, pageInfo and totalCount agree (Relay)', async () => {
    const page = async (after?: string) =>
      (
        await gql(
          t,
          token,
          `query($after: String) { viewer { enrolledCourses(first: 2, after: $after) {
            totalCount nodes { id } edges { cursor node { id } }
            pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
          } } }`,
          { after },
        )
      ).body.data.viewer.enrolledCourses;
    const p1 = await page();
    const ids = [f.enrollments.lifetime, f.enrollments.expiring, f.enrollments.expired];
    assert.equal(p1.totalCount, 3);
    assert.deepEqual(
      p1.nodes.map((n: { id: string }) => n.id),
      ids.slice(0, 2),
    );
    assert.deepEqual(
      p1.edges,
      ids.slice(0, 2).map((id) => ({ cursor: encodeCursor(id), node: { id } })),
    );
    assert.deepEqual(p1.pageInfo, {
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: encodeCursor(ids[0]),
      endCursor: encodeCursor(ids[1]),
    });
    const p2 = await page(p1.pageInfo.endCursor);
    assert.equal(p2.totalCount, 3);
    assert.deepEqual(
      p2.nodes.map((n: { id: string }) => n.id),
      [ids[2]],
    );
    assert.deepEqual(p2.pageInfo, {
      hasNextPage: false,
      hasPreviousPage: true,
      startCursor: encodeCursor(ids[2]),
      endCursor: encodeCursor(ids[2]),
    });
  });

  it('first: 0 returns only the count (Relay allows it)', async () => {
    const res = await gql(
      t,
      token,
      '{ viewer { enrolledCourses(first: 0) { totalCount nodes { id } pageInfo { hasNextPage endCursor } } } }',
    );
    assert.deepEqual(res.body.data.viewer.enrolledCourses, {
      totalCount: 3,
      nodes: [],
      pageInfo: { hasNextPage: true, endCursor: null },
    });
  });

  it('a cursor that is not ours is BAD_USER_INPUT, not a 500', async () => {
    const res = await gql(
      t,
      token,
      '{ viewer { enrolledCourses(after: "bm90LWEtY3Vyc29y") { nodes { id } } } }',
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.errors?.[0].extensions?.code, 'BAD_USER_INPUT');
    assert.equal(res.body.errors?.[0].message, 'The cursor is not one this API returned.');
    const orderCursor = encodeCursor(f.ordersA[0]);
    const foreign = await gql(
      t,
      token,
      `{ viewer { enrolledCourses(after: "${orderCursor}") { nodes { id } } } }`,
    );
    assert.equal(foreign.body.errors?.[0].extensions?.code, 'BAD_USER_INPUT');
  });

  it("another member's cursor, or the member's own at another school, is BAD_USER_INPUT", async () => {
    const theirs = await t.runtime.db
      .selectFrom('enrollments')
      .select('id')
      .where('user_id', '=', f.classmate)
      .executeTakeFirstOrThrow();
    const theirOrder = await t.runtime.db
      .selectFrom('orders')
      .select('id')
      .where('user_id', '=', f.classmate)
      .executeTakeFirstOrThrow();
    const cases: Array<[string, string]> = [
      ['enrolledCourses', theirs.id],
      ['enrolledCourses', f.enrollments.inB],
      ['orders', theirOrder.id],
    ];
    for (const [field, id] of cases) {
      const res = await gql(
        t,
        token,
        `query($after: String) { viewer { ${field}(first: 1, after: $after) { nodes { id } } } }`,
        { after: encodeCursor(id) },
      );
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.body.errors?.map((e) => [e.message, e.extensions, e.path]),
        [
          [
            'The cursor is not one this API returned.',
            { code: 'BAD_USER_INPUT' },
            ['viewer', field, 'nodes'],
          ],
        ],
        `${field} after ${id}`,
      );
    }
  });

  it('orders: newest first, with items and money as minor units + currency', async () => {
    const res = await gql(
      t,
      token,
      `{ viewer { orders { totalCount nodes {
        id number status couponCode createdAt
        subtotal { amount currency } discount { amount currency } total { amount currency } refunded { amount }
        items { productType productId title quantity unitPrice { amount currency } total { amount } }
      } } } }`,
    );
    const conn = res.body.data.viewer.orders;
    assert.equal(conn.totalCount, 2);
    assert.deepEqual(
      conn.nodes.map((o: { id: string }) => o.id),
      [...f.ordersA].reverse(),
    );
    const stored = await t.runtime.db
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', f.ordersA[1])
      .executeTakeFirstOrThrow();
    const item = await t.runtime.db
      .selectFrom('order_items')
      .selectAll()
      .where('order_id', '=', f.ordersA[1])
      .executeTakeFirstOrThrow();
    assert.deepEqual(conn.nodes[0], {
      id: stored.id,
      number: stored.number,
      status: 'PAID',
      couponCode: null,
      createdAt: stored.created_at,
      subtotal: { amount: 9900, currency: 'USD' },
      discount: { amount: 0, currency: 'USD' },
      total: { amount: 9900, currency: 'USD' },
      refunded: { amount: 0 },
      items: [
        {
          productType: 'COURSE',
          productId: f.courses.expiring,
          title: item.title,
          quantity: 1,
          unitPrice: { amount: 9900, currency: 'USD' },
          total: { amount: 9900 },
        },
      ],
    });
  });

  it('event registrations with their event; subscriptions with their plan', async () => {
    const res = await gql(
      t,
      token,
      `{ viewer {
        eventRegistrations { totalCount nodes { status registeredAt canceledAt event { id title status capacity onlineUrl startsAt } } }
        subscriptions { totalCount nodes { id status cancelAtPeriodEnd currentPeriodEnd plan { name interval price { amount currency } } } }
      } }`,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const regs = res.body.data.viewer.eventRegistrations;
    assert.equal(regs.totalCount, 1);
    assert.equal(regs.nodes[0].status, 'REGISTERED');
    assert.equal(regs.nodes[0].canceledAt, null);
    assert.equal(regs.nodes[0].event.id, f.events.open);
    assert.equal(regs.nodes[0].event.title, 'Open Q&A');
    assert.equal(regs.nodes[0].event.status, 'SCHEDULED');
    assert.equal(regs.nodes[0].event.capacity, null);
    assert.equal(regs.nodes[0].event.onlineUrl, 'https://meet.example.com/x');
    const subs = res.body.data.viewer.subscriptions;
    assert.equal(subs.totalCount, 1);
    assert.equal(subs.nodes[0].id, f.subscription);
    assert.equal(subs.nodes[0].status, 'ACTIVE');
    assert.equal(subs.nodes[0].cancelAtPeriodEnd, false);
    assert.deepEqual(subs.nodes[0].plan, {
      name: 'All access',
      interval: 'MONTH',
      price: { amount: 1900, currency: 'USD' },
    });
  });

  it('GET serves queries too (GraphQL-over-HTTP), never cached', async () => {
    const url = `/account/graphql?query=${encodeURIComponent('{ viewer { id } }')}`;
    const res = await t.request(url, {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await res.json(), { data: { viewer: { id: f.student } } });
  });

  it('answers application/graphql-response+json when asked for it', async () => {
    const res = await gql(t, token, '{ viewer { id } }', undefined, {
      Accept: 'application/graphql-response+json, application/json;q=0.9',
    });
    assert.equal(res.headers.get('content-type'), 'application/graphql-response+json; charset=utf-8');
    assert.deepEqual(res.body, { data: { viewer: { id: f.student } } });
  });
});
