/**
 * The first-party consoles' clients: `/docs` (Scalar, operator audience) and GraphiQL (member
 * audience) sign in on every deployment, demo data or not, by the authorization code flow with
 * PKCE, as the consoles themselves run it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import type { AppContext } from '../../src/http/context.ts';
import { findClient } from '../../src/oauth/clients/clients.ts';
import { ensureVendorClients, loadVendors } from '../../src/oauth/clients/vendors.ts';
import { openDatabase } from '../../src/store/database.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { authorizeInBrowser, Browser, obtainCode, pkcePair } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';

const B = TEST_BASE_URL;
const DOCS = 'lectern-api-reference';
const GRAPHIQL = 'lectern-graphiql';

function authorizeUrl(
  clientId: string,
  redirectUri: string,
  scope: string,
  extra: Record<string, string> = {},
) {
  const { challenge } = pkcePair();
  return `/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    state: 'st-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  })}`;
}

describe('console clients without demo data', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ SEED_DEMO: 'false' });
  });
  after(() => t.close());

  it('both console clients exist on a bare deployment: authorize sends the browser to sign in', async () => {
    for (const [id, path, scope] of [
      [DOCS, '/docs', 'courses:read'],
      [GRAPHIQL, '/account/graphql', 'account:read'],
    ]) {
      const res = await t.request(authorizeUrl(id, `${B}${path}`, scope, { resource: B }));
      assert.equal(res.status, 302, `${id}: ${await res.clone().text()}`);
      assert.match(res.headers.get('location') ?? '', /^\/login\?return_to=/);
    }
  });

  it('they are public, reviewed, school-less clients whose only redirect URI is their page at BASE_URL', async () => {
    const docs = await findClient(t.runtime, DOCS);
    const graphiql = await findClient(t.runtime, GRAPHIQL);
    assert.deepEqual(
      [docs?.kind, docs?.authMethod, docs?.schoolId, docs?.reviewed, docs?.redirectUris],
      ['vendor', 'none', null, true, [`${B}/docs`]],
    );
    assert.deepEqual(
      [graphiql?.kind, graphiql?.authMethod, graphiql?.schoolId, graphiql?.reviewed, graphiql?.redirectUris],
      ['member', 'none', null, true, [`${B}/account/graphql`]],
    );
    // Any other redirect URI is refused on the page, never redirected to.
    const res = await t.request(authorizeUrl(DOCS, 'https://evil.example/docs', 'courses:read'));
    assert.equal(res.status, 400);
    assert.match(await res.text(), /Unregistered redirect address/);
  });

  it('a changed BASE_URL moves the redirect URIs on the next start', async () => {
    const db = openDatabase(t.database.options);
    try {
      const moved: AppContext = {
        ...t.runtime,
        db,
        config: { ...t.config, baseUrl: 'https://learn.example' },
      };
      await ensureVendorClients(moved);
      assert.deepEqual((await findClient(moved, DOCS))?.redirectUris, ['https://learn.example/docs']);
      assert.deepEqual((await findClient(moved, GRAPHIQL))?.redirectUris, [
        'https://learn.example/account/graphql',
      ]);
      const back: AppContext = { ...t.runtime, db: openDatabase(t.database.options) };
      try {
        await ensureVendorClients(back);
      } finally {
        await back.db.destroy();
      }
      assert.deepEqual((await findClient(t.runtime, DOCS))?.redirectUris, [`${B}/docs`]);
    } finally {
      await db.destroy();
    }
  });

  it('a VENDORS_FILE cannot take a console client_id (ConfigError at start)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lectern-consoles-'));
    try {
      const path = join(dir, 'vendors.json');
      writeFileSync(
        path,
        JSON.stringify({
          vendors: [{ client_id: DOCS, client_name: 'Impostor', redirect_uris: ['https://evil.example/cb'] }],
        }),
      );
      const config = loadConfig({ ...envOf(t), VENDORS_FILE: path });
      assert.throws(
        () => loadVendors(config),
        (e: Error) => e instanceof ConfigError && /reserved/.test(e.message),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function envOf(t: TestApp): Record<string, string> {
  return {
    NODE_ENV: 'test',
    BASE_URL: t.config.baseUrl,
    LECTERN_SECRET: 'A'.repeat(43),
    ...t.database.env,
  };
}

describe('console clients signing in', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await createWorld(t);
  });
  after(() => t.close());

  it('the API reference, as Scalar runs it: PKCE, then the code exchanged with Basic "client_id:" and no body client_id', async () => {
    const c = await obtainCode(t, {
      clientId: DOCS,
      redirectUri: `${B}/docs`,
      scopes: ['courses:read', 'courses:write'],
      user: 'owner@example.com',
    });
    const res = await t.request('/api/oauth/token', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${DOCS}:`).toString('base64')}`,
      },
      body: new URLSearchParams({
        redirect_uri: `${B}/docs`,
        code: c.code,
        grant_type: 'authorization_code',
        code_verifier: c.verifier,
      }).toString(),
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.scope, 'courses:read courses:write');
    const courses = await t.request('/api/v1/courses?limit=1', {
      headers: { authorization: `Bearer ${body.access_token}` },
    });
    assert.equal(courses.status, 200);
    assert.equal((await courses.json()).data.length, 1);
  });

  it('the API reference is an operator client: a student is told so, account:* is invalid_scope', async () => {
    const student = await authorizeInBrowser(
      new Browser(t),
      authorizeUrl(DOCS, `${B}/docs`, 'courses:read'),
      {
        user: 'student@example.com',
      },
    );
    assert.equal(student.location.searchParams.get('error'), 'access_denied');
    const member = await t.request(authorizeUrl(DOCS, `${B}/docs`, 'account:read'));
    const location = new URL(member.headers.get('location') ?? '');
    assert.equal(location.searchParams.get('error'), 'invalid_scope');
  });

  it('GraphiQL signs a member in at a school with MCP connections on; its consent page says it is part of Lectern', async () => {
    const browser = new Browser(t);
    const { verifier, challenge } = pkcePair();
    const { location, consentPage } = await authorizeInBrowser(
      browser,
      `/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: GRAPHIQL,
        redirect_uri: `${B}/account/graphql`,
        scope: 'account:read account:write',
        state: 'g1',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: B,
      })}`,
      { user: 'student@example.com' },
    );
    assert.match(consentPage ?? '', /Part of Lectern/);
    assert.match(consentPage ?? '', /School: <strong>Demo Academy<\/strong>/);
    const res = await t.request('/api/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: location.searchParams.get('code') ?? '',
        redirect_uri: `${B}/account/graphql`,
        client_id: GRAPHIQL,
        code_verifier: verifier,
        resource: B,
      }).toString(),
    });
    const tokens = await res.json();
    assert.equal(res.status, 200, JSON.stringify(tokens));
    assert.equal(tokens.scope, 'account:read account:write');
    const gql = await t.request('/account/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` },
      body: JSON.stringify({ query: '{ viewer { email } }' }),
    });
    assert.equal(gql.status, 200);
    assert.deepEqual(await gql.json(), { data: { viewer: { email: 'student@example.com' } } });
  });

  it('GraphiQL is refused where no school of the member has MCP connections on, and for operator scopes', async () => {
    const other = await authorizeInBrowser(
      new Browser(t),
      authorizeUrl(GRAPHIQL, `${B}/account/graphql`, 'account:read', { resource: B }),
      { user: 'other-student@example.com' },
    );
    assert.equal(other.location.searchParams.get('error'), 'access_denied');
    assert.match(other.location.searchParams.get('error_description') ?? '', /MCP connections/);
    const operator = await t.request(
      authorizeUrl(GRAPHIQL, `${B}/account/graphql`, 'courses:read', { resource: B }),
    );
    const location = new URL(operator.headers.get('location') ?? '');
    assert.equal(location.searchParams.get('error'), 'invalid_scope');
  });
});
