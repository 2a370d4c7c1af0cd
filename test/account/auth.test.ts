import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import { issueTestToken } from '../support/tokens.ts';
import { type AccountFixture, seedAccountFixture } from '../support/world-account.ts';
import { gql } from './graphql.ts';

const RM = 'resource_metadata="http://lectern.test/.well-known/oauth-protected-resource/account/graphql"';
const QUERY = '{ viewer { id } }';

describe('Account API authorization (spec §5.5, §5.6, §7; RFC 6750 §3; product.md §6)', () => {
  let t: TestApp;
  let f: AccountFixture;
  before(async () => {
    t = await createTestApp();
    f = await seedAccountFixture(t);
  });
  after(() => t.close());

  it('no token: 401 invalid_token with resource_metadata and scope="openid account:read" (spec §5.6)', async () => {
    const res = await gql(t, null, QUERY);
    assert.equal(res.status, 401);
    assert.equal(
      res.headers.get('www-authenticate'),
      `Bearer ${RM}, error="invalid_token", error_description="No access token was presented.", scope="openid account:read"`,
    );
    assert.deepEqual(res.body, {
      errors: [{ message: 'No access token was presented.', extensions: { code: 'invalid_token' } }],
    });
  });

  it('an unknown or malformed token is 401 invalid_token (RFC 6750 §3.1)', async () => {
    for (const header of ['Bearer nope', 'Basic dXNlcjpwYXNz', 'Bearer']) {
      const res = await t.request('/account/graphql', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: header },
        body: JSON.stringify({ query: QUERY }),
      });
      assert.equal(res.status, 401, header);
      assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
      const body = await res.json();
      assert.equal(body.errors[0].extensions.code, 'invalid_token');
    }
  });

  it('a token issued for another origin/resource is 401 invalid_token (RFC 8707 §2, spec §5.5)', async () => {
    const { token } = await issueTestToken(t, {
      userId: f.student,
      schoolId: f.schoolA,
      scopes: ['account:read'],
      audience: 'member',
      resource: 'https://elsewhere.example.com',
    });
    const res = await gql(t, token, QUERY);
    assert.equal(res.status, 401);
    assert.match(
      res.headers.get('www-authenticate') ?? '',
      new RegExp(`^Bearer ${RM}, error="invalid_token"`),
    );
    assert.deepEqual(res.body.errors, [
      {
        message: 'The access token was issued for a different resource.',
        extensions: { code: 'invalid_token' },
      },
    ]);
  });

  it('an expired token is 401 invalid_token', async () => {
    const { token } = await issueTestToken(t, {
      userId: f.student,
      schoolId: f.schoolA,
      scopes: ['account:read'],
      audience: 'member',
      expiresInSeconds: -1,
    });
    const res = await gql(t, token, QUERY);
    assert.equal(res.status, 401);
    assert.equal(res.body.errors?.[0].message, 'The access token has expired.');
  });

  it('a revoked token fails on its next use (product.md §5)', async () => {
    const token = await f.token();
    assert.equal((await gql(t, token, QUERY)).status, 200);
    await t.runtime.db.updateTable('oauth_tokens').set({ revoked_at: new Date().toISOString() }).execute();
    const res = await gql(t, token, QUERY);
    assert.equal(res.status, 401);
    assert.equal(res.body.errors?.[0].message, 'The access token has been revoked.');
    assert.equal(res.body.errors?.[0].extensions?.code, 'invalid_token');
  });

  it('an operator token is 403 wrong_audience with no challenge: no consent of its client can help (spec §5.3)', async () => {
    const { token } = await issueTestToken(t, {
      userId: f.student,
      schoolId: f.schoolA,
      scopes: ['openid', 'courses:read', 'orders:read'],
      audience: 'operator',
    });
    const res = await gql(t, token, QUERY);
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('www-authenticate'), null);
    assert.equal(res.body.errors?.[0].extensions?.code, 'wrong_audience');
    assert.equal(res.body.errors?.[0].extensions?.scope, undefined);
    assert.match(res.body.errors?.[0].message ?? '', /member app of the school/);
  });

  it('an operator-audience grant is refused even if it somehow holds account:read', async () => {
    const { token } = await issueTestToken(t, {
      userId: f.student,
      schoolId: f.schoolA,
      scopes: ['account:read'],
      audience: 'operator',
    });
    const res = await gql(t, token, QUERY);
    assert.equal(res.status, 403);
    assert.equal(res.body.errors?.[0].extensions?.code, 'wrong_audience');
  });

  it('a member token without account:read is 403 insufficient_scope naming it (RFC 6750 §3.1)', async () => {
    const token = await f.token(['openid', 'profile']);
    const res = await gql(t, token, QUERY);
    assert.equal(res.status, 403);
    assert.equal(
      res.headers.get('www-authenticate'),
      `Bearer ${RM}, error="insufficient_scope", error_description="This request needs the account:read scope.", scope="account:read"`,
    );
    assert.deepEqual(res.body.errors?.[0].extensions, { code: 'insufficient_scope', scope: 'account:read' });
  });

  it('account:write implies account:read (product.md §4)', async () => {
    const token = await f.token(['account:write']);
    const res = await gql(t, token, QUERY);
    assert.deepEqual(res.body, { data: { viewer: { id: f.student } } });
  });

  it('a mutation without account:write: 403 with the step-up challenge and a GraphQL error naming the scope', async () => {
    const token = await f.token(['openid', 'account:read']);
    const res = await gql(t, token, 'mutation { updateViewerName(name: "Hacked") { name } }');
    assert.equal(res.status, 403);
    assert.equal(
      res.headers.get('www-authenticate'),
      `Bearer ${RM}, error="insufficient_scope", error_description="Mutations need the account:write scope.", scope="account:write"`,
    );
    assert.deepEqual(res.body, {
      errors: [
        {
          message: 'Mutations need the account:write scope.',
          extensions: { code: 'insufficient_scope', scope: 'account:write' },
        },
      ],
    });
    const user = await t.runtime.db
      .selectFrom('users')
      .select('name')
      .where('id', '=', f.student)
      .executeTakeFirst();
    assert.equal(user?.name, 'Sam Student');
  });

  it('CORS for browser member apps: preflight answered before auth; challenges readable', async () => {
    const preflight = await t.request('/account/graphql', {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://127.0.0.1:5173',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/);
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
    const res = await gql(t, null, QUERY, undefined, { Origin: 'http://127.0.0.1:5173' });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.equal(res.headers.get('access-control-expose-headers'), 'WWW-Authenticate');
    assert.equal(res.headers.get('access-control-allow-credentials'), null);
  });

  describe('school isolation (product.md §2): the same person, two schools, two tokens', () => {
    const ALL = `{ viewer { id school { id name }
      enrolledCourses { totalCount nodes { slug course { id sections { lectures { id } } } } }
      orders { totalCount nodes { total { amount currency } } }
      eventRegistrations { totalCount nodes { event { id title } } }
      subscriptions { totalCount }
    } }`;

    it('a token of school A sees only school A’s rows of this user', async () => {
      const res = await gql(t, await f.token(['account:read'], 'A'), ALL);
      const v = res.body.data.viewer;
      assert.equal(v.school.id, f.schoolA);
      assert.deepEqual(
        v.enrolledCourses.nodes.map((n: { slug: string }) => n.slug),
        ['intro-to-ink', 'paper-folding', 'old-course'],
      );
      assert.equal(v.orders.totalCount, 2);
      assert.ok(v.orders.nodes.every((o: { total: { currency: string } }) => o.total.currency === 'USD'));
      assert.deepEqual(
        v.eventRegistrations.nodes.map((n: { event: { id: string } }) => n.event.id),
        [f.events.open],
      );
      assert.equal(v.subscriptions.totalCount, 1);
    });

    it('a token of school B sees only school B’s rows; nothing of A leaks', async () => {
      const res = await gql(t, await f.token(['account:read'], 'B'), ALL);
      assert.deepEqual(res.body, {
        data: {
          viewer: {
            id: f.student,
            school: { id: f.schoolB, name: 'Beta School' },
            enrolledCourses: {
              totalCount: 1,
              nodes: [{ slug: 'beta-course', course: { id: f.courses.other, sections: [] } }],
            },
            orders: { totalCount: 1, nodes: [{ total: { amount: 500, currency: 'EUR' } }] },
            eventRegistrations: {
              totalCount: 1,
              nodes: [{ event: { id: f.events.inB, title: 'Beta meetup' } }],
            },
            subscriptions: { totalCount: 0 },
          },
        },
      });
    });

    it('mutations cannot reach another school’s lecture or event, nor a classmate’s course', async () => {
      const tokenB = await f.token(['account:write'], 'B');
      const lecture = await gql(
        t,
        tokenB,
        `mutation { recordLectureProgress(input: { lectureId: "${f.lectures.first}", positionSeconds: 1 }) { lectureProgress { positionSeconds } } }`,
      );
      assert.equal(lecture.body.errors?.[0].extensions?.code, 'NOT_FOUND');
      const event = await gql(t, tokenB, `mutation { registerForEvent(eventId: "${f.events.open}") { id } }`);
      assert.equal(event.body.errors?.[0].extensions?.code, 'NOT_FOUND');
      const tokenA = await f.token(['account:write'], 'A');
      const classmates = await gql(
        t,
        tokenA,
        `mutation { recordLectureProgress(input: { lectureId: "${f.lectures.classmateOnly}", positionSeconds: 1 }) { lectureProgress { positionSeconds } } }`,
      );
      assert.equal(classmates.body.errors?.[0].extensions?.code, 'NOT_ENROLLED');
    });
  });
});
