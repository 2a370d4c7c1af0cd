import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO_MEMBER_APP_ID } from '../../src/domain/demo/demo-seed.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { obtainTokens } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { gql } from './graphql.ts';

const SPEC_QUERY = `{
  viewer {
    id
    email
    enrolledCourses(first: 10) {
      nodes {
        slug
        expireDate
        hasLifetimeAccess
        lastWatchedLecture { lectureId positionSeconds }
      }
    }
  }
}`;

describe('the spec §2.5 query with a token from the real authorization flow (demo member app, demo student)', () => {
  let t: TestApp;
  let world: World;
  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
  });
  after(() => t.close());

  it('authorize + consent + code exchange, then every field of §2.5 matches the database', async () => {
    const tokens = await obtainTokens(t, {
      clientId: DEMO_MEMBER_APP_ID,
      redirectUri: 'http://127.0.0.1:51234/callback',
      scopes: ['openid', 'account:read'],
      resource: t.config.baseUrl,
      user: 'student@example.com',
    });
    assert.equal(tokens.scope, 'openid account:read');

    const res = await gql(t, tokens.access_token, SPEC_QUERY);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.errors, undefined);

    const db = t.runtime.db;
    const demo = { id: world.demo.schoolId };
    const student = { id: world.demo.studentId, email: 'student@example.com' };
    const rows = await db
      .selectFrom('enrollments')
      .innerJoin('courses', 'courses.id', 'enrollments.course_id')
      .select([
        'courses.slug',
        'enrollments.expires_at',
        'enrollments.last_lecture_id',
        'enrollments.last_position_seconds',
      ])
      .where('enrollments.school_id', '=', demo.id)
      .where('enrollments.user_id', '=', student.id)
      .orderBy('enrollments.id')
      .limit(10)
      .execute();
    // The demo student has several enrollments, one lifetime, one expiring, some progress (product.md §9).
    assert.ok(rows.length >= 2, `demo student has ${rows.length} enrollments`);
    assert.ok(rows.some((r) => r.expires_at === null));
    assert.ok(rows.some((r) => r.expires_at !== null));
    assert.ok(rows.some((r) => r.last_lecture_id !== null));

    const viewer = res.body.data.viewer;
    assert.equal(viewer.id, student.id);
    assert.equal(viewer.email, student.email);
    assert.equal(viewer.enrolledCourses.nodes.length, rows.length);
    rows.forEach((row, i) => {
      const node = viewer.enrolledCourses.nodes[i];
      assert.equal(node.slug, row.slug, `slug #${i}`);
      assert.equal(node.expireDate, row.expires_at, `expireDate #${i}`);
      assert.equal(node.hasLifetimeAccess, row.expires_at === null, `hasLifetimeAccess #${i}`);
      assert.deepEqual(
        node.lastWatchedLecture,
        row.last_lecture_id
          ? { lectureId: row.last_lecture_id, positionSeconds: row.last_position_seconds }
          : null,
        `lastWatchedLecture #${i}`,
      );
    });
    assert.deepEqual(Object.keys(res.body.data.viewer).sort(), ['email', 'enrolledCourses', 'id']);

    // The same token cannot write: account:write was not asked for.
    const write = await gql(t, tokens.access_token, 'mutation { updateViewerName(name: "X") { name } }');
    assert.equal(write.status, 403);
    assert.match(write.headers.get('www-authenticate') ?? '', /scope="account:write"/);
  });

  it('after revocation at the revocation endpoint the token is refused on its next use (RFC 7009)', async () => {
    const tokens = await obtainTokens(t, {
      clientId: DEMO_MEMBER_APP_ID,
      scopes: ['openid', 'account:read'],
      resource: t.config.baseUrl,
    });
    assert.equal((await gql(t, tokens.access_token, '{ viewer { id } }')).status, 200);
    const revoke = await t.request('/api/oauth/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: DEMO_MEMBER_APP_ID }).toString(),
    });
    assert.equal(revoke.status, 200);
    const res = await gql(t, tokens.access_token, '{ viewer { id } }');
    assert.equal(res.status, 401);
    assert.equal(res.body.errors?.[0].extensions?.code, 'invalid_token');
  });
});
