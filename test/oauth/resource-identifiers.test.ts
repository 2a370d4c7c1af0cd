/**
 * The protected resources of this origin (RFC 9728 §3.3, RFC 8707): BASE_URL, BASE_URL/mcp and
 * BASE_URL/account/graphql name one resource server. A client may name any of them as
 * `resource`; the grant is the origin's, the token records the name (introspection's `aud`), and
 * it works at every surface (spec §5.5). Another origin is `invalid_target`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import {
  authorizeInBrowser,
  Browser,
  obtainCode,
  obtainTokens,
  pkcePair,
  registerLoopbackClient,
  tokenRequest,
} from '../support/oauth-flow.ts';

const B = TEST_BASE_URL;
const IDS = [B, `${B}/mcp`, `${B}/account/graphql`];

async function introspect(t: TestApp, token: string, clientId: string) {
  const res = await tokenEndpointForm(t, '/api/oauth/introspect', { token, client_id: clientId });
  assert.equal(res.status, 200);
  return res.json();
}

function tokenEndpointForm(t: TestApp, path: string, fields: Record<string, string>) {
  return t.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe('resource identifiers of this origin (RFC 9728 §3.3, RFC 8707)', () => {
  let t: TestApp;
  let loopback: string;

  before(async () => {
    t = await createTestApp();
    await seedDemoData(t.runtime.db);
    loopback = (await registerLoopbackClient(t)).client_id;
  });
  after(() => t.close());

  for (const id of IDS) {
    it(`resource=${id.replace(B, 'BASE_URL')} (with or without a trailing slash): the token names it and works at every surface`, async () => {
      for (const sent of [id, `${id}/`]) {
        const operator = await obtainTokens(t, {
          clientId: loopback,
          scopes: ['openid', 'courses:read'],
          user: 'owner@example.com',
          resource: sent,
        });
        assert.equal((await introspect(t, operator.access_token, loopback)).aud, id);
        assert.equal((await t.request('/api/v1/courses?limit=1', bearer(operator.access_token))).status, 200);
        assert.equal((await t.request('/api/oauth/userinfo', bearer(operator.access_token))).status, 200);
      }
      const member = await obtainTokens(t, {
        clientId: 'demo-member-app',
        scopes: ['openid', 'account:read'],
        resource: id,
      });
      assert.equal((await introspect(t, member.access_token, 'demo-member-app')).aud, id);
      const graphql = await t.request('/account/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${member.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ viewer { email } }' }),
      });
      assert.equal(graphql.status, 200);
      assert.deepEqual(await graphql.json(), { data: { viewer: { email: 'student@example.com' } } });
      const mcp = await t.request('/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${member.access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(mcp.status, 200);
    });
  }

  it('another origin, or a path of this one that is no resource, is invalid_target at authorization (RFC 8707 §2)', async () => {
    for (const resource of ['https://elsewhere.example/mcp', `${B}/api/v1`, `${B}/mcp/x`, `${B}.evil/mcp`]) {
      const { challenge } = pkcePair();
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: loopback,
        redirect_uri: 'http://127.0.0.1:4000/callback',
        state: 's',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource,
      });
      const res = await t.request(`/oauth/authorize?${q}`);
      assert.equal(res.status, 302, resource);
      const location = new URL(res.headers.get('location')!);
      assert.equal(location.searchParams.get('error'), 'invalid_target', resource);
    }
  });

  it('the token request repeats the resource: omitted means the authorization’s, another one is invalid_target (RFC 8707 §2.2)', async () => {
    const mcp = `${B}/mcp`;
    const exchange = async (resource?: string) => {
      const { code, verifier, redirectUri } = await obtainCode(t, {
        clientId: loopback,
        scopes: ['openid'],
        user: 'owner@example.com',
        resource: mcp,
      });
      const fields: Record<string, string> = {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: loopback,
      };
      if (resource) fields.resource = resource;
      const res = await tokenRequest(t, fields);
      return { status: res.status, body: await res.json() };
    };
    const omitted = await exchange();
    assert.equal(omitted.status, 200);
    assert.equal((await introspect(t, omitted.body.access_token, loopback)).aud, mcp);
    const other = await exchange(B);
    assert.equal(other.status, 400);
    assert.equal(other.body.error, 'invalid_target');

    // Refresh keeps the resource; naming another one is refused, the same one is fine.
    const refresh = (resource?: string) =>
      tokenRequest(t, {
        grant_type: 'refresh_token',
        refresh_token: omitted.body.refresh_token,
        client_id: loopback,
        ...(resource ? { resource } : {}),
      });
    const wrong = await refresh(`${B}/account/graphql`);
    assert.equal(wrong.status, 400);
    assert.equal((await wrong.json()).error, 'invalid_target');
    const same = await refresh(`${mcp}/`);
    assert.equal(same.status, 200);
    assert.equal((await introspect(t, (await same.json()).access_token, loopback)).aud, mcp);
  });

  it('one grant for the origin: consent given for BASE_URL is remembered for BASE_URL/mcp', async () => {
    const claude = (resource: string, state = randomBytes(6).toString('hex')) => {
      const { challenge } = pkcePair();
      return `/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: 'claude',
        redirect_uri: 'https://claude.ai/api/mcp/auth_callback',
        scope: 'openid courses:read',
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource,
      })}`;
    };
    const browser = new Browser(t);
    const first = await authorizeInBrowser(browser, claude(B), { user: 'owner@example.com' });
    assert.ok(first.consentPage, 'asked the first time');
    const again = await browser.request(claude(`${B}/mcp`));
    assert.equal(again.status, 302, 'not asked again for another name of the same resource');
    assert.ok(new URL(again.headers.get('location')!).searchParams.get('code'));
  });
});
