/**
 * Client authentication with HTTP Basic (RFC 6749 §2.3.1) beside client_secret_post, at the
 * token, revocation and introspection endpoints: what Scalar, openid-client and most libraries
 * send by default.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../../src/crypto/tokens.ts';
import { isoNow } from '../../src/store/time.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { obtainCode, registerLoopbackClient } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';

const B = TEST_BASE_URL;
const REDIRECT = 'http://127.0.0.1:43123/callback';
const CHALLENGE = 'Basic realm="Lectern", charset="UTF-8"';

/** RFC 6749 §2.3.1 / Appendix B: each part form-urlencoded, then `id:secret` in Base64. */
const formEncode = (s: string) => new URLSearchParams({ v: s }).toString().slice(2);
const basic = (id: string, secret: string, encode = true) =>
  `Basic ${Buffer.from(encode ? `${formEncode(id)}:${formEncode(secret)}` : `${id}:${secret}`).toString('base64')}`;

describe('client_secret_basic (RFC 6749 §2.3.1)', () => {
  let t: TestApp;
  let publicClient: string;
  let basicClient: { client_id: string; client_secret?: string };
  let postClient: { client_id: string; client_secret?: string };
  let registration: { status: number; body: Record<string, unknown> };
  // A secret with every character §2.3.1's encoding changes: a raw "id:secret" would misread it.
  const SPECIAL_ID = 'lc_special';
  const SPECIAL_SECRET = 'a:b+c d%/é&=?';

  before(async () => {
    t = await createTestApp();
    await createWorld(t);
    publicClient = (await registerLoopbackClient(t)).client_id;
    const res = await t.request('/api/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Basic CLI',
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    });
    registration = { status: res.status, body: await res.json() };
    // The other tests need a confidential client even where registration refuses the method.
    basicClient =
      res.status === 201
        ? (registration.body as { client_id: string; client_secret: string })
        : await registerLoopbackClient(t, { authMethod: 'client_secret_post', name: 'Basic CLI' });
    postClient = await registerLoopbackClient(t, { authMethod: 'client_secret_post', name: 'Post CLI' });
    const now = isoNow();
    await t.runtime.db
      .insertInto('oauth_clients')
      .values({
        id: SPECIAL_ID,
        kind: 'loopback',
        name: 'Special CLI',
        school_id: null,
        token_endpoint_auth_method: 'client_secret_post',
        secret_hash: sha256(SPECIAL_SECRET),
        redirect_uris: JSON.stringify(['http://127.0.0.1/callback']),
        allowed_scopes: null,
        application_type: 'native',
        metadata: '{}',
        reviewed: 0,
        metadata_fetched_at: null,
        metadata_expires_at: null,
        created_by_user_id: null,
        secret_rotated_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  });
  after(() => t.close());

  function post(path: string, fields: Record<string, string>, authorization?: string) {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (authorization !== undefined) headers.authorization = authorization;
    return t.request(path, { method: 'POST', headers, body: new URLSearchParams(fields).toString() });
  }

  async function codeFor(clientId: string) {
    const c = await obtainCode(t, {
      clientId,
      scopes: ['openid', 'courses:read'],
      user: 'owner@example.com',
    });
    return {
      grant_type: 'authorization_code',
      code: c.code,
      code_verifier: c.verifier,
      redirect_uri: REDIRECT,
    };
  }

  async function assertError(
    res: Response,
    status: number,
    error: string,
    options: { challenge?: boolean; description?: RegExp } = {},
  ) {
    const body = await res.json();
    assert.equal(res.status, status, JSON.stringify(body));
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
    assert.equal(body.error, error);
    if (options.description) assert.match(body.error_description, options.description);
    // RFC 6749 §5.2: a failed Authorization-header attempt is 401 with the scheme's challenge.
    assert.equal(res.headers.get('www-authenticate'), options.challenge ? CHALLENGE : null);
  }

  it('registration accepts client_secret_basic, issues a secret and echoes the method (RFC 7591 §2)', () => {
    assert.equal(registration.status, 201, JSON.stringify(registration.body));
    assert.match(registration.body.client_id as string, /^lc_/);
    assert.match(registration.body.client_secret as string, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(registration.body.token_endpoint_auth_method, 'client_secret_basic');
    assert.equal(registration.body.client_secret_expires_at, 0);
  });

  it('token: a confidential client authenticates with Basic; the code exchange answers 200', async () => {
    const fields = await codeFor(basicClient.client_id);
    const res = await post(
      '/api/oauth/token',
      fields,
      basic(basicClient.client_id, basicClient.client_secret!),
    );
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.scope, 'openid courses:read');
    // client_id may also be in the body when it names the same client (RFC 6749 §4.1.3).
    const refreshed = await post(
      '/api/oauth/token',
      { grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: basicClient.client_id },
      basic(basicClient.client_id, basicClient.client_secret!),
    );
    assert.equal(refreshed.status, 200, await refreshed.clone().text());
  });

  it('token: every confidential client may use either method (a client_secret_post client sends Basic)', async () => {
    const viaBasic = await post(
      '/api/oauth/token',
      await codeFor(postClient.client_id),
      basic(postClient.client_id, postClient.client_secret!),
    );
    assert.equal(viaBasic.status, 200, await viaBasic.clone().text());
    const viaPost = await post('/api/oauth/token', {
      ...(await codeFor(basicClient.client_id)),
      client_id: basicClient.client_id,
      client_secret: basicClient.client_secret!,
    });
    assert.equal(viaPost.status, 200, await viaPost.clone().text());
  });

  it('RFC 6749 §2.3.1: id and secret are form-urlencoded before Base64; raw special characters fail', async () => {
    const fields = await codeFor(SPECIAL_ID);
    const raw = await post('/api/oauth/token', fields, basic(SPECIAL_ID, SPECIAL_SECRET, false));
    await assertError(raw, 401, 'invalid_client', { challenge: true });
    const encoded = await post('/api/oauth/token', fields, basic(SPECIAL_ID, SPECIAL_SECRET));
    assert.equal(encoded.status, 200, await encoded.clone().text());
  });

  it('a wrong or missing secret in Basic → 401 invalid_client with WWW-Authenticate: Basic (RFC 6749 §5.2)', async () => {
    const fields = { grant_type: 'refresh_token', refresh_token: 'x' };
    await assertError(
      await post('/api/oauth/token', fields, basic(basicClient.client_id, 'wrong')),
      401,
      'invalid_client',
      { challenge: true, description: /client_secret|secret/ },
    );
    await assertError(
      await post('/api/oauth/token', fields, basic(basicClient.client_id, '')),
      401,
      'invalid_client',
      { challenge: true },
    );
    await assertError(await post('/api/oauth/token', fields, basic('nobody', 'x')), 401, 'invalid_client', {
      challenge: true,
    });
    // Body credentials that fail carry no challenge: the client did not use HTTP authentication.
    await assertError(
      await post('/api/oauth/token', { ...fields, client_id: basicClient.client_id, client_secret: 'wrong' }),
      401,
      'invalid_client',
    );
  });

  it('RFC 6749 §2.3: both methods at once → 400 invalid_request', async () => {
    const res = await post(
      '/api/oauth/token',
      {
        grant_type: 'refresh_token',
        refresh_token: 'x',
        client_id: basicClient.client_id,
        client_secret: basicClient.client_secret!,
      },
      basic(basicClient.client_id, basicClient.client_secret!),
    );
    await assertError(res, 400, 'invalid_request', { description: /one client authentication method/ });
    const other = await post(
      '/api/oauth/token',
      { grant_type: 'refresh_token', refresh_token: 'x', client_id: postClient.client_id },
      basic(basicClient.client_id, basicClient.client_secret!),
    );
    await assertError(other, 400, 'invalid_request', { description: /client_id/ });
  });

  it('a public client may identify itself with Basic and an empty password, as consoles do; a password is refused', async () => {
    const ok = await post('/api/oauth/token', await codeFor(publicClient), basic(publicClient, ''));
    assert.equal(ok.status, 200, await ok.clone().text());
    await assertError(
      await post(
        '/api/oauth/token',
        { grant_type: 'refresh_token', refresh_token: 'x' },
        basic(publicClient, 's'),
      ),
      401,
      'invalid_client',
      { challenge: true, description: /public/ },
    );
  });

  it('a malformed or foreign Authorization header → 401 invalid_client with the Basic challenge, never a 500', async () => {
    const fields = { grant_type: 'refresh_token', refresh_token: 'x' };
    for (const header of [
      'Basic',
      'Basic !!!',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      `Basic ${Buffer.from(':secret').toString('base64')}`,
      `Basic ${Buffer.from('%zz:secret').toString('base64')}`,
      `Basic ${Buffer.from('a\u0000b:secret').toString('base64')}`,
      `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0x41]).toString('base64')}`,
      `Basic ${'A'.repeat(5000)}`,
      'Bearer abc',
      'Digest username="x"',
    ]) {
      await assertError(await post('/api/oauth/token', fields, header), 401, 'invalid_client', {
        challenge: true,
      });
    }
  });

  it('revocation (RFC 7009 §2.1) and introspection (RFC 7662 §2.1) accept Basic the same way', async () => {
    const res = await post(
      '/api/oauth/token',
      await codeFor(basicClient.client_id),
      basic(basicClient.client_id, basicClient.client_secret!),
    );
    const tokens = await res.json();
    const auth = basic(basicClient.client_id, basicClient.client_secret!);
    const active = await post('/api/oauth/introspect', { token: tokens.access_token }, auth);
    assert.equal(active.status, 200);
    const body = await active.json();
    assert.equal(body.active, true);
    assert.equal(body.client_id, basicClient.client_id);
    assert.equal(body.aud, B);
    await assertError(
      await post('/api/oauth/introspect', { token: tokens.access_token }, basic(basicClient.client_id, 'x')),
      401,
      'invalid_client',
      { challenge: true },
    );
    await assertError(
      await post('/api/oauth/revoke', { token: tokens.refresh_token }, basic(basicClient.client_id, 'x')),
      401,
      'invalid_client',
      { challenge: true },
    );
    const revoked = await post('/api/oauth/revoke', { token: tokens.refresh_token }, auth);
    assert.equal(revoked.status, 200);
    assert.equal(await revoked.text(), '');
    const after = await post('/api/oauth/introspect', { token: tokens.access_token }, auth);
    assert.deepEqual(await after.json(), { active: false });
  });

  it('discovery lists client_secret_basic beside none and client_secret_post (RFC 8414 §2)', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const doc = await (await t.request(path)).json();
      for (const key of [
        'token_endpoint_auth_methods_supported',
        'revocation_endpoint_auth_methods_supported',
        'introspection_endpoint_auth_methods_supported',
      ]) {
        assert.deepEqual(doc[key], ['none', 'client_secret_basic', 'client_secret_post'], `${path} ${key}`);
      }
    }
  });
});
