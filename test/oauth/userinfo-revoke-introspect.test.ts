import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { updateUserName } from '../../src/domain/school/users.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { obtainTokens, registerLoopbackClient, tokenRequest } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';

const B = TEST_BASE_URL;
const RESOURCE_METADATA = `resource_metadata="${B}/.well-known/oauth-protected-resource"`;

function form(t: TestApp, path: string, fields: Record<string, string>) {
  return t.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

describe('UserInfo, revocation and introspection', () => {
  let t: TestApp;
  let client: string;
  let confidential: { client_id: string; client_secret?: string };
  before(async () => {
    t = await createTestApp();
    await createWorld(t);
    client = (await registerLoopbackClient(t)).client_id;
    confidential = await registerLoopbackClient(t, { authMethod: 'client_secret_post', name: 'Secret CLI' });
  });
  after(() => t.close());

  const operatorTokens = (scopes: string[]) =>
    obtainTokens(t, { clientId: client, scopes, user: 'owner@example.com' });
  const userinfo = (token: string, init: RequestInit = {}) =>
    t.request('/api/oauth/userinfo', {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...init.headers },
    });

  describe('GET/POST /api/oauth/userinfo', () => {
    it('returns the same claims as the id_token (spec §2.4, §5.5), on GET and POST', async () => {
      const tokens = await obtainTokens(t, {
        clientId: 'demo-member-app',
        scopes: ['openid', 'profile', 'email', 'account:read'],
        resource: B,
        nonce: 'abc',
      });
      const idClaims = decodeJwt(tokens.id_token!);
      for (const method of ['GET', 'POST']) {
        const res = await userinfo(tokens.access_token, { method });
        assert.equal(res.status, 200, method);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        const claims = await res.json();
        assert.deepEqual(Object.keys(claims).sort(), ['email', 'name', 'org_id', 'roles', 'sub']);
        for (const k of ['sub', 'email', 'name', 'org_id', 'roles'] as const)
          assert.deepEqual(claims[k], idClaims[k], k);
        assert.deepEqual(claims.roles, ['student']);
        assert.equal(claims.email, 'student@example.com');
      }
    });

    it('the name is read with the token, never kept: a rename shows on the very next request (product.md §5)', async () => {
      const tokens = await obtainTokens(t, {
        clientId: 'demo-member-app',
        scopes: ['openid', 'profile', 'email'],
        resource: B,
      });
      const before = await (await userinfo(tokens.access_token)).json();
      assert.equal(before.email, 'student@example.com');
      // Twice: on SQLite the second answer comes from the verified-token cache.
      assert.equal((await (await userinfo(tokens.access_token)).json()).name, before.name);
      await updateUserName(t.runtime.db, before.sub, 'Renamed Student');
      try {
        const after = await (await userinfo(tokens.access_token)).json();
        assert.deepEqual(after, { ...before, name: 'Renamed Student' });
      } finally {
        await updateUserName(t.runtime.db, before.sub, before.name);
      }
    });

    it('claims are gated by scope: email by email, name by profile, sub/org_id/roles with openid', async () => {
      const tokens = await operatorTokens(['openid', 'courses:read']);
      const claims = await (await userinfo(tokens.access_token)).json();
      assert.deepEqual(Object.keys(claims).sort(), ['org_id', 'roles', 'sub']);
      const id = decodeJwt(tokens.id_token!);
      assert.equal(id.email, undefined);
      assert.equal(id.name, undefined);
      assert.equal(id.sub, claims.sub);
    });

    it('without openid → 403 insufficient_scope with a challenge', async () => {
      const tokens = await operatorTokens(['courses:read']);
      const res = await userinfo(tokens.access_token);
      assert.equal(res.status, 403);
      const challenge = res.headers.get('www-authenticate')!;
      assert.match(challenge, /^Bearer /);
      assert.match(challenge, /error="insufficient_scope"/);
      assert.match(challenge, /scope="openid"/);
    });

    it('invalid, missing, query or body tokens → 401 with resource_metadata (RFC 6750 §2.1, §3)', async () => {
      const tokens = await operatorTokens(['openid']);
      const bad = await userinfo('not-a-token');
      assert.equal(bad.status, 401);
      assert.match(bad.headers.get('www-authenticate')!, new RegExp(`^Bearer ${RESOURCE_METADATA}`));
      assert.match(bad.headers.get('www-authenticate')!, /error="invalid_token"/);
      const none = await t.request('/api/oauth/userinfo');
      assert.equal(none.status, 401);
      assert.match(none.headers.get('www-authenticate')!, new RegExp(RESOURCE_METADATA));
      const query = await t.request(`/api/oauth/userinfo?access_token=${tokens.access_token}`);
      assert.equal(query.status, 401);
      const body = await form(t, '/api/oauth/userinfo', { access_token: tokens.access_token });
      assert.equal(body.status, 401);
    });

    it('an expired access token → 401 invalid_token (access tokens live 1 hour)', async () => {
      const tokens = await operatorTokens(['openid']);
      const { sha256 } = await import('../../src/crypto/tokens.ts');
      const row = await t.runtime.db
        .selectFrom('oauth_tokens')
        .selectAll()
        .where('token_hash', '=', sha256(tokens.access_token))
        .executeTakeFirstOrThrow();
      assert.equal(Date.parse(row.expires_at) - Date.parse(row.created_at), 3600_000);
      assert.equal(row.resource, B, 'bound to BASE_URL (RFC 8707)');
      const res = await t.clock.travel(3600_000, () => userinfo(tokens.access_token));
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate')!, /error="invalid_token"/);
    });
  });

  describe('POST /api/oauth/revoke (RFC 7009)', () => {
    it('revoking an access token takes effect on the next request; the refresh token still works', async () => {
      const tokens = await operatorTokens(['openid']);
      const res = await form(t, '/api/oauth/revoke', {
        token: tokens.access_token,
        token_type_hint: 'access_token',
        client_id: client,
      });
      assert.equal(res.status, 200);
      assert.equal(await res.text(), '');
      assert.equal((await userinfo(tokens.access_token)).status, 401);
      const refreshed = await tokenRequest(t, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: client,
      });
      assert.equal(refreshed.status, 200);
    });

    it('revoking a refresh token revokes its grant: every access token too (§2.1)', async () => {
      const tokens = await operatorTokens(['openid']);
      const res = await form(t, '/api/oauth/revoke', { token: tokens.refresh_token, client_id: client });
      assert.equal(res.status, 200);
      assert.equal((await userinfo(tokens.access_token)).status, 401);
      const refreshed = await tokenRequest(t, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: client,
      });
      assert.equal(refreshed.status, 400);
    });

    it('an unknown token is 200 too (§2.2); another client’s token is left alone', async () => {
      assert.equal((await form(t, '/api/oauth/revoke', { token: 'unknown', client_id: client })).status, 200);
      const tokens = await operatorTokens(['openid']);
      const other = (await registerLoopbackClient(t, { name: 'Other' })).client_id;
      const res = await form(t, '/api/oauth/revoke', { token: tokens.access_token, client_id: other });
      assert.equal(res.status, 200);
      assert.equal((await userinfo(tokens.access_token)).status, 200, 'not revoked by a stranger');
    });

    it('client authentication: confidential clients need their secret; missing token is invalid_request', async () => {
      const tokens = await obtainTokens(t, {
        clientId: confidential.client_id,
        clientSecret: confidential.client_secret,
        scopes: ['openid'],
        user: 'owner@example.com',
      });
      const noSecret = await form(t, '/api/oauth/revoke', {
        token: tokens.access_token,
        client_id: confidential.client_id,
      });
      assert.equal(noSecret.status, 401);
      assert.equal((await noSecret.json()).error, 'invalid_client');
      assert.equal((await userinfo(tokens.access_token)).status, 200);
      const ok = await form(t, '/api/oauth/revoke', {
        token: tokens.access_token,
        client_id: confidential.client_id,
        client_secret: confidential.client_secret!,
      });
      assert.equal(ok.status, 200);
      assert.equal((await userinfo(tokens.access_token)).status, 401);
      const missing = await form(t, '/api/oauth/revoke', { client_id: client });
      assert.equal(missing.status, 400);
      assert.equal((await missing.json()).error, 'invalid_request');
      const json = await t.request('/api/oauth/revoke', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(json.status, 400);
      assert.equal((await json.json()).error, 'invalid_request');
    });
  });

  describe('POST /api/oauth/introspect (RFC 7662)', () => {
    it('an active access token: scope, client_id, sub, aud = the bound resource, org_id, exp, iat, token_type, iss', async () => {
      const tokens = await operatorTokens(['openid', 'courses:read']);
      const res = await form(t, '/api/oauth/introspect', { token: tokens.access_token, client_id: client });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const body = await res.json();
      const info = await (await userinfo(tokens.access_token)).json();
      assert.equal(body.active, true);
      assert.equal(body.scope, 'openid courses:read');
      assert.equal(body.client_id, client);
      assert.equal(body.sub, info.sub);
      assert.equal(body.aud, B);
      assert.equal(body.iss, B);
      assert.equal(body.org_id, info.org_id);
      assert.equal(body.token_type, 'Bearer');
      assert.equal(body.exp - body.iat, 3600);
    });

    it('a refresh token introspects as token_type refresh_token', async () => {
      const tokens = await operatorTokens(['openid']);
      const body = await (
        await form(t, '/api/oauth/introspect', { token: tokens.refresh_token, client_id: client })
      ).json();
      assert.equal(body.active, true);
      assert.equal(body.token_type, 'refresh_token');
    });

    it('revoked, unknown or another client’s tokens are just {active:false}', async () => {
      const tokens = await operatorTokens(['openid']);
      const other = (await registerLoopbackClient(t, { name: 'Nosy' })).client_id;
      assert.deepEqual(
        await (
          await form(t, '/api/oauth/introspect', { token: tokens.access_token, client_id: other })
        ).json(),
        { active: false },
      );
      assert.deepEqual(
        await (await form(t, '/api/oauth/introspect', { token: 'nope', client_id: client })).json(),
        { active: false },
      );
      await form(t, '/api/oauth/revoke', { token: tokens.refresh_token, client_id: client });
      assert.deepEqual(
        await (
          await form(t, '/api/oauth/introspect', { token: tokens.access_token, client_id: client })
        ).json(),
        { active: false },
      );
    });

    it('duplicated parameters and wrong content types → invalid_request', async () => {
      for (const path of ['/api/oauth/introspect', '/api/oauth/revoke']) {
        const dup = await t.request(path, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `token=a&token=b&client_id=${client}`,
        });
        assert.equal(dup.status, 400, path);
        assert.match((await dup.json()).error_description, /token was given more than once/);
        const text = await t.request(path, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: 'token=a',
        });
        assert.equal(text.status, 400, path);
        assert.equal((await text.json()).error, 'invalid_request');
      }
    });

    it('needs client authentication', async () => {
      const res = await form(t, '/api/oauth/introspect', { token: 'x' });
      assert.equal(res.status, 401);
      assert.equal((await res.json()).error, 'invalid_client');
    });
  });

  it('token, UserInfo, revocation and introspection answer CORS preflights for browser clients', async () => {
    for (const path of [
      '/api/oauth/token',
      '/api/oauth/userinfo',
      '/api/oauth/revoke',
      '/api/oauth/introspect',
    ]) {
      const res = await t.request(path, {
        method: 'OPTIONS',
        headers: { origin: 'https://inspector.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(res.status, 204, path);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.match(res.headers.get('access-control-allow-headers')!, /Authorization/);
    }
    const denied = await t.request('/api/oauth/userinfo', {
      headers: { origin: 'https://inspector.example' },
    });
    assert.equal(denied.headers.get('access-control-allow-origin'), '*');
    assert.match(denied.headers.get('access-control-expose-headers')!, /WWW-Authenticate/);
  });
});
