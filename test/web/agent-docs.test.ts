import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ID_TOKEN_LIFETIME_SECONDS } from '../../src/crypto/signing-keys.ts';
import { ACCESS_TOKEN_LIFETIME_SECONDS } from '../../src/oauth/grants/tokens.ts';
import { ALL_SCOPES } from '../../src/oauth/scopes.ts';
import { duration } from '../../src/web/agent-docs.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

const BASE = 'https://school.example.org';

describe('/auth.md and /llms.txt (spec §1, §5.1)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ BASE_URL: BASE, CIMD_ALLOWED_HOSTS: 'apps.example.com' });
  });
  after(() => t.close());

  it('/auth.md is markdown for this deployment’s BASE_URL with no placeholder left', async () => {
    const res = await t.request('/auth.md');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8');
    const text = await res.text();
    assert.ok(text.includes(`curl -s ${BASE}/.well-known/oauth-authorization-server`));
    assert.ok(text.includes(`&resource=${encodeURIComponent(BASE)}`));
    assert.doesNotMatch(text, /\{base_url|\{\{/);
    assert.doesNotMatch(text, /lectern\.test/);
  });

  it('the vendor table says what registering with each platform’s redirect URIs really returns', async () => {
    const text = await (await t.request('/auth.md')).text();
    const rows = [...text.matchAll(/^\| ([^|]+) \| `([^`]+)` \| ([^|]+) \| ([^|]+) \| [^|]+ \|$/gm)];
    assert.ok(rows.length >= 8, `vendor rows: ${rows.length}`);
    const register = async (name: string, redirect: string) => {
      const res = await t.request('/api/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: name, redirect_uris: [redirect] }),
      });
      assert.equal(res.status, 201, `${name}: ${await res.clone().text()}`);
      return (await res.json()).client_id as string;
    };
    for (const [, names, clientId, uris, returns] of rows) {
      const name = names.split(',')[0].trim();
      const listed = [...uris.matchAll(/`([^`<]+)`/g)].map((m) => m[1]);
      const loopback = listed.filter(
        (u) => u.startsWith('http://127.0.0.1') || u.startsWith('http://localhost'),
      );
      const fixed = listed.filter((u) => !loopback.includes(u));
      if (fixed.length > 0) {
        assert.ok(returns.startsWith(`\`${clientId}\``), name);
        assert.equal(await register(name, fixed[0]), clientId, name);
      }
      if (loopback.length > 0) {
        assert.match(returns, /a new loopback client_id/, name);
        assert.notEqual(await register(name, loopback[0]), clientId, name);
      }
    }
  });

  it('follows the order of spec §5.1 and covers every route of spec §5.2', async () => {
    const text = await (await t.request('/auth.md')).text();
    const order = [
      '## 1. Discover',
      '## 2. Obtain a client_id',
      '### 2.1 Vendor platforms',
      '### 2.2 Loopback clients',
      '### 2.3 Fixed HTTPS callback',
      '### 2.4 Client ID Metadata Document',
      '### 2.5 Member clients',
      '## 3. Audiences and scopes',
      // Each walkthrough in the order of use (spec §5.1).
      '## 4. Operator walkthrough',
      '### 4.1 Register a loopback client',
      '### 4.2 Authorize',
      '### 4.3 Exchange the code',
      '### 4.4 Call the admin API',
      '### 4.5 Refresh',
      '### 4.6 Revoke',
      '## 5. Member walkthrough',
      "### 5.1 The member app's client_id",
      '### 5.2 Authorize',
      '### 5.3 Exchange the code',
      '### 5.4 Verify the id_token',
      '### 5.5 Call the Account API',
      '### 5.6 Refresh',
      '### 5.7 Revoke',
      '## 6. MCP walkthrough',
      '### 6.1 Anonymous',
      '### 6.2 With a token',
      '### 6.3 From an MCP SDK',
      '## 7. AI hosts',
      '## 8. Errors',
    ];
    let at = -1;
    for (const heading of order) {
      const i = text.indexOf(heading);
      assert.ok(i > at, `${heading} missing or out of order`);
      at = i;
    }
    // The member walkthrough names a client that can be granted account:read.
    assert.match(text, /^CLIENT_ID=demo-member-app /m);
    assert.match(text, /`apps\.example\.com`/, 'the configured CIMD allowlist');
    assert.match(
      text,
      /\| Claude, [^|]*\| `claude` \| `https:\/\/claude\.ai\/api\/mcp\/auth_callback`/,
      'the vendors',
    );
    assert.match(text, /`https:\/\/claude\.ai\/oauth\/mcp-oauth-client-metadata` \|/, 'pinned documents');
    assert.match(text, /unsupported/);
  });

  it('has a row for every scope of the catalogue, the audience rule and the lifetimes', async () => {
    const text = await (await t.request('/auth.md')).text();
    for (const scope of ALL_SCOPES) assert.match(text, new RegExp(`\\| \`${scope}\` \\|`), scope);
    assert.match(text, /\| `account:read` \| member only \|/);
    assert.match(text, /\| `courses:write` \| operator \|/);
    assert.ok(text.includes(`| id_token | ${duration(ID_TOKEN_LIFETIME_SECONDS)} |`));
    assert.equal(duration(ID_TOKEN_LIFETIME_SECONDS), '10 minutes');
    assert.ok(text.includes(`"expires_in": ${ACCESS_TOKEN_LIFETIME_SECONDS}`));
    for (const code of [
      'invalid_request',
      'invalid_grant',
      'invalid_client',
      'invalid_scope',
      'invalid_client_metadata',
      'invalid_redirect_uri',
      'invalid_token',
      'insufficient_scope',
    ]) {
      assert.match(text, new RegExp(`\\| \`${code}\` \\|`), code);
    }
  });

  it('every endpoint address it gives exists on this server', async () => {
    const text = await (await t.request('/auth.md')).text();
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/jwks.json',
      '/openapi.json',
      '/account/graphql/schema.graphql',
      '/llms.txt',
    ]) {
      assert.ok(text.includes(`${BASE}${path}`), path);
      assert.equal((await t.request(path)).status, 200, path);
    }
    const metadata = await (await t.request('/.well-known/oauth-authorization-server')).json();
    for (const key of [
      'token_endpoint',
      'registration_endpoint',
      'revocation_endpoint',
      'userinfo_endpoint',
    ]) {
      assert.ok(text.includes(metadata[key]), key);
    }
    assert.equal(metadata.service_documentation, `${BASE}/auth.md`);
  });

  it('/llms.txt points agents to auth.md, openapi.json, the GraphQL schema, /mcp and discovery', async () => {
    const res = await t.request('/llms.txt');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    const text = await res.text();
    assert.match(text, /^# Lectern\n/);
    for (const path of [
      '/auth.md',
      '/openapi.json',
      '/account/graphql/schema.graphql',
      '/mcp',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/.well-known/oauth-protected-resource',
    ]) {
      assert.ok(text.includes(`](${BASE}${path})`), path);
    }
  });
});
