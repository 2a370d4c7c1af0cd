/**
 * The access log and the security events: one JSON line
 * per request naming the route template, never a credential; a line per security event.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../../src/crypto/tokens.ts';
import { DEMO_PASSWORD, seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { ACCOUNT_FAILURE_LIMIT } from '../../src/web/login.ts';
import { TEST_BASE_URL } from '../support/app.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';
import { Browser, obtainCode, registerLoopbackClient, signIn, tokenRequest } from '../support/oauth-flow.ts';
import { signedIn, submit } from '../web/pages-support.ts';

const B = TEST_BASE_URL;
type Line = Record<string, unknown>;

describe('access log and security events', () => {
  let t: LoggedTestApp;
  let demo: string;
  before(async () => {
    t = await createLoggedTestApp({ LOG_LEVEL: 'info' });
    await seedDemoData(t.runtime.db);
    demo = (await findSchoolBySubdomain(t.runtime.db, 'demo'))!.id;
  });
  after(() => t.close());

  const since = (mark: number) => t.logs.slice(mark);
  const accessLines = (lines: Line[]) => lines.filter((l) => l.msg === 'request');
  const events = (lines: Line[], event: string) => lines.filter((l) => l.event === event);

  it('one line per request: method, route template, status, duration, request id, client id', async () => {
    const mark = t.logs.length;
    const course = await t.runtime.db
      .selectFrom('courses')
      .select('id')
      .where('school_id', '=', demo)
      .executeTakeFirstOrThrow();
    const client = await registerLoopbackClient(t, { authMethod: 'client_secret_basic' });
    const { code, verifier, redirectUri } = await obtainCode(t, {
      clientId: client.client_id,
      scopes: ['openid', 'courses:read'],
      resource: B,
      user: 'owner@example.com',
    });
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    const tokenRes = await t.request('/api/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }).toString(),
    });
    assert.equal(tokenRes.status, 200);
    const tokens = (await tokenRes.json()) as { access_token: string; refresh_token: string };
    const api = await t.request(`/api/v1/courses/${course.id}?expand=all`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(api.status, 200);
    const missing = await t.request('/api/v1/courses/crs_nope', {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(missing.status, 404);
    const revoke = await t.request('/api/oauth/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      body: new URLSearchParams({ token: tokens.refresh_token }).toString(),
    });
    assert.equal(revoke.status, 200);

    const lines = since(mark);
    const access = accessLines(lines);
    // Every request of the flow was logged once (register, authorize, login ×2, consent ×2, token, API ×2, revoke).
    for (const line of access) {
      assert.deepEqual(
        Object.keys(line).sort(),
        [
          ...(line.clientId === undefined ? [] : ['clientId']),
          'durationMs',
          'level',
          'method',
          'msg',
          'requestId',
          'route',
          'service',
          'status',
          'time',
        ].sort(),
      );
      assert.equal(line.level, 30);
      assert.equal(typeof line.durationMs, 'number');
      assert.match(String(line.requestId), /^[0-9a-f-]{36}$/);
    }
    const pick = (l: Line) => [l.method, l.route, l.status, l.clientId ?? null];
    assert.deepEqual(access.map(pick), [
      ['POST', '/api/oauth/register', 201, null],
      ['GET', '/oauth/authorize', 302, null],
      ['GET', '/login', 200, null],
      ['POST', '/login', 303, null],
      ['GET', '/oauth/authorize', 200, null],
      ['POST', '/oauth/authorize', 303, null],
      ['POST', '/api/oauth/token', 200, client.client_id],
      ['GET', '/api/v1/courses/:course_id', 200, client.client_id],
      ['GET', '/api/v1/courses/:course_id', 404, client.client_id],
      ['POST', '/api/oauth/revoke', 200, client.client_id],
    ]);
    // The request id of the line is the one the response carried.
    assert.equal(access[8].requestId, (await missing.json()).request_id);
    assert.equal(access[7].requestId, api.headers.get('x-request-id'));

    // No credential of the flow, nor anything from a query string or cookie, in any line.
    const text = JSON.stringify(lines);
    for (const secret of [
      DEMO_PASSWORD,
      client.client_secret!,
      code,
      verifier,
      tokens.access_token,
      tokens.refresh_token,
      course.id,
      'expand=all',
      basic.slice('Basic '.length),
    ]) {
      assert.equal(text.includes(secret), false, `logged: ${secret.slice(0, 12)}…`);
    }

    // The security events of the flow, each once, at info.
    const owner = (await findUserByEmail(t.runtime.db, 'owner@example.com'))!;
    const [login] = events(lines, 'login.succeeded');
    assert.equal(login.userId, owner.id);
    assert.equal(login.level, 30);
    assert.equal(login.requestId, access[3].requestId);
    const [grant] = events(lines, 'grant.created');
    assert.deepEqual(
      [grant.userId, grant.schoolId, grant.clientId, grant.scopes, grant.requestId],
      [owner.id, demo, client.client_id, ['openid', 'courses:read'], access[5].requestId],
    );
    const [revoked] = events(lines, 'grant.revoked');
    assert.deepEqual(
      [revoked.clientId, revoked.grantId, revoked.by],
      [client.client_id, grant.grantId, 'client'],
    );
  });

  it('failed sign-ins name the account (never the email or password), then the lockout', async () => {
    const mark = t.logs.length;
    const student = (await findUserByEmail(t.runtime.db, 'student@example.com'))!;
    const browser = new Browser(t);
    for (let i = 0; i < ACCOUNT_FAILURE_LIMIT; i++) {
      assert.equal(
        (await signIn(browser, 'student@example.com', { password: `wrong-guess-${i}` })).status,
        401,
      );
    }
    assert.equal((await signIn(browser, 'nobody@example.com', { password: 'wrong-guess-x' })).status, 401);
    assert.equal((await signIn(browser, 'student@example.com', { password: DEMO_PASSWORD })).status, 429);
    const lines = since(mark);
    const failed = events(lines, 'login.failed');
    assert.deepEqual(
      failed.map((l) => l.userId),
      [...Array(ACCOUNT_FAILURE_LIMIT).fill(student.id), null],
    );
    const [locked] = events(lines, 'login.locked');
    assert.ok(locked && (locked.retryAfterSeconds as number) > 0, JSON.stringify(locked));
    assert.equal(typeof locked.address, 'string');
    assert.doesNotMatch(
      JSON.stringify(lines),
      /wrong-guess|student@example\.com|nobody@example\.com|demo-password/,
    );
  });

  it('a member revoking a connection and an operator toggling the beta are logged', async () => {
    const mark = t.logs.length;
    const student = await signedIn(t, 'lecturer@example.com');
    const { code, verifier, redirectUri } = await obtainCode(t, {
      clientId: 'demo-member-app',
      scopes: ['openid', 'account:read'],
      resource: B,
      user: 'lecturer@example.com',
      browser: student,
    });
    const res = await tokenRequest(t, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: 'demo-member-app',
      code_verifier: verifier,
      resource: B,
    });
    assert.equal(res.status, 200, await res.clone().text());
    const tokens = (await res.json()) as { access_token: string };
    const grant = (
      await t.runtime.db
        .selectFrom('oauth_tokens')
        .select('grant_id')
        .where('token_hash', '=', sha256(tokens.access_token))
        .executeTakeFirstOrThrow()
    ).grant_id;
    assert.equal((await submit(student, '/account', '/account/connections/revoke', { grant })).status, 303);
    const owner = await signedIn(t, 'owner@example.com');
    assert.equal(
      (await submit(owner, `/admin/${demo}`, `/admin/${demo}/beta`, { enabled: 'on' })).status,
      303,
    );

    const lines = since(mark);
    const lecturer = (await findUserByEmail(t.runtime.db, 'lecturer@example.com'))!;
    const ownerId = (await findUserByEmail(t.runtime.db, 'owner@example.com'))!.id;
    const [revoked] = events(lines, 'grant.revoked');
    assert.deepEqual([revoked.userId, revoked.grantId, revoked.by], [lecturer.id, grant, 'member']);
    const [beta] = events(lines, 'beta.toggled');
    assert.deepEqual(
      [beta.schoolId, beta.actorUserId, beta.feature, beta.enabled],
      [demo, ownerId, 'mcp_connections', true],
    );
  });
});
