import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { sha256 } from '../../src/crypto/tokens.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { DAY } from '../support/clock.ts';
import { obtainCode, obtainTokens, registerLoopbackClient, tokenRequest } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';

const B = TEST_BASE_URL;
const REDIRECT = 'http://127.0.0.1:43123/callback';

describe('POST /api/oauth/token', () => {
  let t: TestApp;
  let world: World;
  let loopback: string;
  let confidential: { client_id: string; client_secret?: string };

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    loopback = (await registerLoopbackClient(t)).client_id;
    confidential = await registerLoopbackClient(t, { authMethod: 'client_secret_post', name: 'Secret CLI' });
    assert.ok(confidential.client_secret);
  });
  after(() => t.close());

  const operatorCode = (scopes = ['openid', 'courses:read'], nonce?: string) =>
    obtainCode(t, { clientId: loopback, scopes, user: 'owner@example.com', nonce });

  async function exchange(fields: Record<string, string>) {
    const res = await tokenRequest(t, fields);
    return { res, body: await res.json() };
  }

  function assertOAuthError(
    res: Response,
    body: Record<string, unknown>,
    status: number,
    error: string,
    description?: RegExp,
  ) {
    assert.equal(res.status, status, JSON.stringify(body));
    assert.equal(body.error, error);
    assert.equal(typeof body.error_description, 'string');
    if (description) assert.match(body.error_description as string, description);
    assert.equal(res.headers.get('cache-control'), 'no-store');
  }

  describe('authorization_code', () => {
    it('issues Bearer tokens with scope, expiry and an ES256 id_token (spec §4.3), never cached', async () => {
      const { code, verifier } = await operatorCode(
        ['openid', 'profile', 'email', 'courses:read'],
        'nonce-42',
      );
      const { res, body } = await exchange({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: loopback,
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('pragma'), 'no-cache');
      assert.deepEqual(Object.keys(body).sort(), [
        'access_token',
        'expires_in',
        'id_token',
        'refresh_token',
        'scope',
        'token_type',
      ]);
      assert.equal(body.token_type, 'Bearer');
      assert.equal(body.expires_in, 3600);
      assert.equal(body.scope, 'openid profile email courses:read');
      assert.match(body.access_token, /^[A-Za-z0-9_-]{43}$/, '256 bits, base64url');
      assert.notEqual(body.access_token, body.refresh_token);
      const header = decodeProtectedHeader(body.id_token);
      assert.equal(header.alg, 'ES256');
      assert.ok(header.kid);
      const claims = decodeJwt(body.id_token);
      assert.equal(claims.iss, B);
      assert.equal(claims.aud, loopback);
      assert.equal(claims.nonce, 'nonce-42');
      assert.equal(claims.email, 'owner@example.com');
      assert.equal(claims.name, 'Olivia Owner');
      assert.deepEqual(claims.roles, ['owner']);
      assert.equal((claims.exp as number) - (claims.iat as number), 600);
      assert.equal(typeof claims.auth_time, 'number');
      // Stored only as hashes.
      const row = await t.runtime.db
        .selectFrom('oauth_tokens')
        .select('token_hash')
        .where('token_hash', '=', sha256(body.access_token))
        .executeTakeFirst();
      assert.ok(row);
      const raw = await t.runtime.db
        .selectFrom('oauth_tokens')
        .select('token_hash')
        .where('token_hash', '=', body.access_token)
        .executeTakeFirst();
      assert.equal(raw, undefined);
    });

    it('no id_token without openid (spec §4.3)', async () => {
      const { code, verifier } = await operatorCode(['courses:read']);
      const { res, body } = await exchange({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: loopback,
      });
      assert.equal(res.status, 200);
      assert.equal(body.id_token, undefined);
      assert.equal(body.scope, 'courses:read');
    });

    it('PKCE (RFC 7636 §4.6): a wrong verifier is invalid_grant, a missing one invalid_request', async () => {
      const { code } = await operatorCode();
      const base = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: loopback };
      const wrong = await exchange({ ...base, code_verifier: 'x'.repeat(43) });
      assertOAuthError(wrong.res, wrong.body, 400, 'invalid_grant', /PKCE/);
      const missing = await exchange(base);
      assertOAuthError(missing.res, missing.body, 400, 'invalid_request', /code_verifier/);
      const malformed = await exchange({ ...base, code_verifier: 'short' });
      assertOAuthError(malformed.res, malformed.body, 400, 'invalid_request', /43-128/);
    });

    it('redirect_uri must equal the authorization request’s (RFC 6749 §4.1.3), even another loopback port', async () => {
      const { code, verifier } = await operatorCode();
      const r = await exchange({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: 'http://127.0.0.1:43124/callback',
        client_id: loopback,
      });
      assertOAuthError(r.res, r.body, 400, 'invalid_grant', /redirect_uri/);
    });

    it('a code is bound to its client', async () => {
      const other = (await registerLoopbackClient(t, { name: 'Other CLI' })).client_id;
      const { code, verifier } = await operatorCode();
      const r = await exchange({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: other,
      });
      assertOAuthError(r.res, r.body, 400, 'invalid_grant', /another client/);
    });

    it('code reuse fails and revokes every token the first redemption issued (RFC 6749 §4.1.2)', async () => {
      const { code, verifier } = await operatorCode();
      const fields = {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: loopback,
      };
      const first = await exchange(fields);
      assert.equal(first.res.status, 200);
      const ok = await t.request('/api/oauth/userinfo', {
        headers: { authorization: `Bearer ${first.body.access_token}` },
      });
      assert.equal(ok.status, 200);
      const second = await exchange(fields);
      assertOAuthError(second.res, second.body, 400, 'invalid_grant', /already used/);
      const revoked = await t.request('/api/oauth/userinfo', {
        headers: { authorization: `Bearer ${first.body.access_token}` },
      });
      assert.equal(revoked.status, 401);
      const refresh = await exchange({
        grant_type: 'refresh_token',
        refresh_token: first.body.refresh_token,
        client_id: loopback,
      });
      assertOAuthError(refresh.res, refresh.body, 400, 'invalid_grant');
    });

    it('an expired code (60 s, product.md §5) is invalid_grant', async () => {
      const { code, verifier } = await operatorCode();
      const r = await t.clock.travel(61_000, () =>
        exchange({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT,
          client_id: loopback,
        }),
      );
      assertOAuthError(r.res, r.body, 400, 'invalid_grant', /expired/);
      const row = await t.runtime.db
        .selectFrom('oauth_codes')
        .select('expires_at')
        .where('code_hash', '=', sha256(code))
        .executeTakeFirstOrThrow();
      assert.ok(row);
    });

    it('codes live 60 seconds', async () => {
      const { code } = await operatorCode();
      const row = await t.runtime.db
        .selectFrom('oauth_codes')
        .select(['expires_at', 'created_at'])
        .where('code_hash', '=', sha256(code))
        .executeTakeFirstOrThrow();
      assert.equal(Date.parse(row.expires_at) - Date.parse(row.created_at), 60_000);
    });

    it('an unknown code is invalid_grant', async () => {
      const r = await exchange({
        grant_type: 'authorization_code',
        code: 'nope',
        code_verifier: 'x'.repeat(43),
        redirect_uri: REDIRECT,
        client_id: loopback,
      });
      assertOAuthError(r.res, r.body, 400, 'invalid_grant');
    });

    it('member app: resource must be repeated and match (spec §4.3, RFC 8707 §2.2)', async () => {
      const opts = { clientId: 'demo-member-app', scopes: ['openid', 'account:read'], resource: B };
      const a = await obtainCode(t, opts);
      const base = {
        grant_type: 'authorization_code',
        code: a.code,
        code_verifier: a.verifier,
        redirect_uri: REDIRECT,
        client_id: 'demo-member-app',
      };
      const missing = await exchange(base);
      assertOAuthError(missing.res, missing.body, 400, 'invalid_target', /required/);
      const other = await exchange({ ...base, resource: 'https://api.other.example' });
      assertOAuthError(other.res, other.body, 400, 'invalid_target');
      const ok = await exchange({ ...base, resource: `${B}/` });
      assert.equal(ok.res.status, 200, JSON.stringify(ok.body));
      assert.equal(ok.body.scope, 'openid account:read');
    });

    it('operator client: resource optional, but a different one is invalid_target', async () => {
      const { code, verifier } = await operatorCode();
      const r = await exchange({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: loopback,
        resource: 'http://lectern.test.evil',
      });
      assertOAuthError(r.res, r.body, 400, 'invalid_target');
    });

    it('member app: the token endpoint refuses once the school turns MCP connections off', async () => {
      const { setBetaFeature } = await import('../../src/domain/school/schools.ts');
      const school = world.demo.schoolId;
      const a = await obtainCode(t, {
        clientId: 'demo-member-app',
        scopes: ['openid', 'account:read'],
        resource: B,
      });
      await setBetaFeature(t.runtime.db, school, 'mcp_connections', false);
      try {
        const r = await exchange({
          grant_type: 'authorization_code',
          code: a.code,
          code_verifier: a.verifier,
          redirect_uri: REDIRECT,
          client_id: 'demo-member-app',
          resource: B,
        });
        assertOAuthError(r.res, r.body, 400, 'unauthorized_client', /MCP connections/);
      } finally {
        await setBetaFeature(t.runtime.db, school, 'mcp_connections', true);
      }
    });
  });

  describe('client authentication (RFC 6749 §2.3)', () => {
    it('a confidential client must send its client_secret: missing or wrong → invalid_client 401', async () => {
      const a = await obtainCode(t, {
        clientId: confidential.client_id,
        scopes: ['openid'],
        user: 'owner@example.com',
      });
      const base = {
        grant_type: 'authorization_code',
        code: a.code,
        code_verifier: a.verifier,
        redirect_uri: REDIRECT,
        client_id: confidential.client_id,
      };
      const missing = await exchange(base);
      assertOAuthError(missing.res, missing.body, 401, 'invalid_client');
      const wrong = await exchange({ ...base, client_secret: 'wrong' });
      assertOAuthError(wrong.res, wrong.body, 401, 'invalid_client');
      const ok = await exchange({ ...base, client_secret: confidential.client_secret! });
      assert.equal(ok.res.status, 200);
    });

    it('a public client must not send a secret; an unknown client is invalid_client', async () => {
      const r = await exchange({
        grant_type: 'refresh_token',
        refresh_token: 'x',
        client_id: loopback,
        client_secret: 's',
      });
      assertOAuthError(r.res, r.body, 401, 'invalid_client', /public/);
      const unknown = await exchange({
        grant_type: 'refresh_token',
        refresh_token: 'x',
        client_id: 'nobody',
      });
      assertOAuthError(unknown.res, unknown.body, 401, 'invalid_client');
      const none = await exchange({ grant_type: 'refresh_token', refresh_token: 'x' });
      assertOAuthError(none.res, none.body, 401, 'invalid_client', /client_id/);
    });

    it('HTTP Basic (RFC 6749 §2.3.1) with a public client and an empty password names the client', async () => {
      const res = await t.request('/api/oauth/token', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${loopback}:`).toString('base64')}`,
        },
        body: 'grant_type=refresh_token&refresh_token=x',
      });
      // Authenticated as the public client; the refresh token itself is what fails.
      assertOAuthError(res, await res.json(), 400, 'invalid_grant');
    });
  });

  describe('refresh_token', () => {
    it('rotates: a new pair each time, no id_token, the old refresh token stops working', async () => {
      const first = await obtainTokens(t, {
        clientId: loopback,
        scopes: ['openid', 'courses:read'],
        user: 'owner@example.com',
      });
      const r1 = await exchange({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: loopback,
      });
      assert.equal(r1.res.status, 200);
      assert.equal(r1.res.headers.get('cache-control'), 'no-store');
      assert.equal(r1.body.id_token, undefined, 'spec §4.3: refresh responses carry no id_token');
      assert.notEqual(r1.body.refresh_token, first.refresh_token);
      assert.notEqual(r1.body.access_token, first.access_token);
      assert.equal(r1.body.scope, 'openid courses:read');
      assert.equal(r1.body.token_type, 'Bearer');
      const r2 = await exchange({
        grant_type: 'refresh_token',
        refresh_token: r1.body.refresh_token,
        client_id: loopback,
      });
      assert.equal(r2.res.status, 200);
    });

    it('reuse of a rotated-out refresh token after the reuse grace revokes the whole grant (OAuth 2.1 §4.3.1)', async () => {
      const first = await obtainTokens(t, {
        clientId: loopback,
        scopes: ['openid', 'courses:read'],
        user: 'owner@example.com',
      });
      const r1 = await exchange({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: loopback,
      });
      assert.equal(r1.res.status, 200);
      // Within the grace the same answer is given again (refresh-grace.test.ts); past it, reuse.
      const replay = await t.clock.travel((t.config.refreshReuseGraceSeconds + 1) * 1000, () =>
        exchange({
          grant_type: 'refresh_token',
          refresh_token: first.refresh_token,
          client_id: loopback,
        }),
      );
      assertOAuthError(replay.res, replay.body, 400, 'invalid_grant', /already used/);
      const live = await exchange({
        grant_type: 'refresh_token',
        refresh_token: r1.body.refresh_token,
        client_id: loopback,
      });
      assertOAuthError(live.res, live.body, 400, 'invalid_grant', /revoked/);
      const ui = await t.request('/api/oauth/userinfo', {
        headers: { authorization: `Bearer ${r1.body.access_token}` },
      });
      assert.equal(ui.status, 401);
    });

    it('scope may narrow (RFC 6749 §6) and widen back to the grant, never beyond → invalid_scope', async () => {
      const first = await obtainTokens(t, {
        clientId: loopback,
        scopes: ['openid', 'courses:read', 'courses:write'],
        user: 'owner@example.com',
      });
      const narrow = await exchange({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: loopback,
        scope: 'courses:read',
      });
      assert.equal(narrow.res.status, 200);
      assert.equal(narrow.body.scope, 'courses:read');
      const broad = await exchange({
        grant_type: 'refresh_token',
        refresh_token: narrow.body.refresh_token,
        client_id: loopback,
        scope: 'courses:read students:read',
      });
      assertOAuthError(broad.res, broad.body, 400, 'invalid_scope', /students:read/);
      const back = await exchange({
        grant_type: 'refresh_token',
        refresh_token: narrow.body.refresh_token,
        client_id: loopback,
      });
      assert.equal(back.res.status, 200);
      assert.equal(back.body.scope, 'openid courses:read courses:write');
    });

    it('RFC 6749 §3.3 scope strings at authorize and refresh: empty or unknown names → invalid_scope; a repeat counts once (an empty parameter is omitted, §3.1)', async () => {
      const repeated = await obtainTokens(t, {
        clientId: loopback,
        scopes: ['openid', 'courses:read', 'courses:read'],
        user: 'owner@example.com',
      });
      assert.equal(repeated.scope, 'openid courses:read');
      let refresh = repeated.refresh_token;
      for (const [scope, pattern] of [
        [' ', /empty/],
        [' courses:read', /malformed/],
        ['openid  courses:read', /malformed/],
        ['courses:read ', /malformed/],
        ['courses:read bogus:scope', /bogus:scope/],
      ] as const) {
        const bad = await exchange({
          grant_type: 'refresh_token',
          refresh_token: refresh,
          client_id: loopback,
          scope,
        });
        assertOAuthError(bad.res, bad.body, 400, 'invalid_scope', pattern);
      }
      const twice = await exchange({
        grant_type: 'refresh_token',
        refresh_token: refresh,
        client_id: loopback,
        scope: 'courses:read courses:read',
      });
      assert.equal(twice.res.status, 200, JSON.stringify(twice.body));
      assert.equal(twice.body.scope, 'courses:read');
      refresh = twice.body.refresh_token;
      assert.ok(refresh);
    });

    it('a refresh token is bound to its client and its resource', async () => {
      const first = await obtainTokens(t, {
        clientId: loopback,
        scopes: ['openid'],
        user: 'owner@example.com',
      });
      const other = (await registerLoopbackClient(t, { name: 'Thief CLI' })).client_id;
      const stolen = await exchange({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: other,
      });
      assertOAuthError(stolen.res, stolen.body, 400, 'invalid_grant', /another client/);
      const target = await exchange({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: loopback,
        resource: 'https://elsewhere.example',
      });
      assertOAuthError(target.res, target.body, 400, 'invalid_target');
      const same = await exchange({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: loopback,
        resource: B,
      });
      assert.equal(same.res.status, 200);
    });

    it('an expired refresh token is invalid_grant; refresh tokens live 30 days', async () => {
      const first = await obtainTokens(t, {
        clientId: loopback,
        scopes: ['openid'],
        user: 'owner@example.com',
      });
      const row = await t.runtime.db
        .selectFrom('oauth_tokens')
        .selectAll()
        .where('token_hash', '=', sha256(first.refresh_token))
        .executeTakeFirstOrThrow();
      assert.equal(Date.parse(row.expires_at) - Date.parse(row.created_at), 30 * 24 * 3600 * 1000);
      const r = await t.clock.travel(30 * DAY + 1, () =>
        exchange({
          grant_type: 'refresh_token',
          refresh_token: first.refresh_token,
          client_id: loopback,
        }),
      );
      assertOAuthError(r.res, r.body, 400, 'invalid_grant', /expired/);
    });

    it('a grant stops refreshing when the user loses the role it needs (product.md §2)', async () => {
      const { addRoles } = await import('../../src/domain/school/memberships.ts');
      const lecturer = world.demo.lecturerId;
      const school = world.demo.schoolId;
      await addRoles(t.runtime.db, school, lecturer, ['admin']);
      const first = await obtainTokens(t, {
        clientId: loopback,
        scopes: ['openid'],
        user: 'lecturer@example.com',
      });
      await t.runtime.db
        .updateTable('memberships')
        .set({ roles: JSON.stringify(['lecturer']) })
        .where('user_id', '=', lecturer)
        .where('school_id', '=', school)
        .execute();
      const r = await exchange({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: loopback,
      });
      assertOAuthError(r.res, r.body, 400, 'invalid_grant', /no longer has the role/);
    });

    it('member app: refresh stops while the school has MCP connections off, and works again after', async () => {
      const { setBetaFeature } = await import('../../src/domain/school/schools.ts');
      const school = world.demo.schoolId;
      const first = await obtainTokens(t, {
        clientId: 'demo-member-app',
        scopes: ['openid', 'account:read'],
        resource: B,
      });
      await setBetaFeature(t.runtime.db, school, 'mcp_connections', false);
      try {
        const r = await exchange({
          grant_type: 'refresh_token',
          refresh_token: first.refresh_token,
          client_id: 'demo-member-app',
        });
        assertOAuthError(r.res, r.body, 400, 'unauthorized_client', /MCP connections/);
      } finally {
        await setBetaFeature(t.runtime.db, school, 'mcp_connections', true);
      }
      const again = await exchange({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: 'demo-member-app',
      });
      assert.equal(again.res.status, 200, 'a refused refresh does not rotate the token');
    });

    it('an access token is not a refresh token', async () => {
      const first = await obtainTokens(t, {
        clientId: loopback,
        scopes: ['openid'],
        user: 'owner@example.com',
      });
      const r = await exchange({
        grant_type: 'refresh_token',
        refresh_token: first.access_token,
        client_id: loopback,
      });
      assertOAuthError(r.res, r.body, 400, 'invalid_grant');
    });
  });

  describe('bad input is a documented error, never a 5xx', () => {
    it('unsupported grant types', async () => {
      for (const grant of ['password', 'client_credentials', 'implicit']) {
        const r = await exchange({ grant_type: grant, client_id: loopback });
        assertOAuthError(r.res, r.body, 400, 'unsupported_grant_type');
      }
      const missing = await exchange({ client_id: loopback });
      assertOAuthError(missing.res, missing.body, 400, 'invalid_request', /grant_type/);
    });

    it('wrong content types → invalid_request', async () => {
      for (const [type, body] of [
        ['application/json', JSON.stringify({ grant_type: 'refresh_token' })],
        ['text/plain', 'grant_type=refresh_token'],
        ['multipart/form-data; boundary=x', '--x--'],
      ]) {
        const res = await t.request('/api/oauth/token', {
          method: 'POST',
          headers: { 'content-type': type },
          body,
        });
        assertOAuthError(res, await res.json(), 400, 'invalid_request', /x-www-form-urlencoded/);
      }
      const none = await t.request('/api/oauth/token', { method: 'POST', body: 'grant_type=x' });
      assert.equal(none.status, 400);
    });

    it('duplicated parameters → invalid_request (RFC 6749 §3.2)', async () => {
      const res = await t.request('/api/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=refresh_token&refresh_token=a&refresh_token=b&client_id=${loopback}`,
      });
      assertOAuthError(
        res,
        await res.json(),
        400,
        'invalid_request',
        /refresh_token was given more than once/,
      );
    });

    it('malformed forms and odd bytes → a 4xx OAuth error', async () => {
      for (const body of [
        '%%%',
        '&&&===',
        'grant_type=%E0%A4%A',
        '\u0000\u0001',
        'a'.repeat(5000),
        '=x&grant_type',
      ]) {
        const res = await t.request('/api/oauth/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
          body,
        });
        assert.ok(
          res.status >= 400 && res.status < 500,
          `${res.status} for ${JSON.stringify(body.slice(0, 20))}`,
        );
        const json = await res.json();
        assert.equal(typeof json.error, 'string');
      }
    });

    it('oversized bodies → 413 invalid_request', async () => {
      const small = await createTestApp({ BODY_LIMIT_BYTES: '2048' });
      try {
        const res = await small.request('/api/oauth/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=refresh_token&refresh_token=${'a'.repeat(5000)}`,
        });
        assert.equal(res.status, 413);
        assert.equal((await res.json()).error, 'invalid_request');
      } finally {
        await small.close();
      }
    });

    it('GET on the token endpoint is not a token request', async () => {
      const res = await t.request('/api/oauth/token?grant_type=refresh_token');
      assert.ok(res.status === 404 || res.status === 405, String(res.status));
    });
  });
});
