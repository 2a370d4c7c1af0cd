import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../../src/crypto/tokens.ts';
import { findClient, verifyClientSecret } from '../../src/oauth/clients/clients.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type OwnRedis, REDIS_SERVER_AVAILABLE, startOwnRedis } from '../support/redis-server.ts';

const REGISTER_LIMIT = 12;

describe('POST /api/oauth/register (RFC 7591, product.md §3 decision order)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ TRUST_PROXY: 'true', REGISTRATION_RATE_LIMIT: String(REGISTER_LIMIT) });
  });
  after(() => t.close());

  // Each request comes from its own address unless a test names one (the limiter is per address).
  let n = 0;
  const post = (body: unknown, init: { ip?: string; type?: string; raw?: string } = {}) =>
    t.request('/api/oauth/register', {
      method: 'POST',
      headers: {
        'Content-Type': init.type ?? 'application/json',
        'X-Forwarded-For': init.ip ?? `198.51.100.${++n % 250}`,
      },
      body: init.raw ?? JSON.stringify(body),
    });

  async function expectError(res: Response, status: number, error: string): Promise<string> {
    assert.equal(res.status, status);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const body = await res.json();
    assert.equal(body.error, error);
    assert.equal(typeof body.error_description, 'string');
    assert.ok(body.error_description.length > 10);
    return body.error_description;
  }

  it('rule 1 (RFC 8252 §7.3): loopback redirect URIs get a new public client, metadata echoed (RFC 7591 §3.2.1)', async () => {
    const res = await post({
      client_name: 'My CLI',
      redirect_uris: [
        'http://127.0.0.1:8123/callback',
        'http://[::1]/cb',
        'http://localhost:5000/oauth/callback',
      ],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'courses:read openid',
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const body = await res.json();
    assert.match(body.client_id, /^lc_[0-9a-z]{26}$/);
    assert.ok(Math.abs(body.client_id_issued_at - Date.now() / 1000) < 10);
    assert.deepEqual(body, {
      client_id: body.client_id,
      client_id_issued_at: body.client_id_issued_at,
      client_name: 'My CLI',
      redirect_uris: [
        'http://127.0.0.1:8123/callback',
        'http://[::1]/cb',
        'http://localhost:5000/oauth/callback',
      ],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      scope: 'openid courses:read',
    });
    const client = await findClient(t.runtime, body.client_id);
    assert.equal(client?.kind, 'loopback');
    assert.equal(client?.authMethod, 'none');
    assert.equal(client?.secretHash, null);
  });

  it('rule 1 with client_secret_post: the secret is shown once and stored only as its hash', async () => {
    const res = await post({
      redirect_uris: ['http://127.0.0.1/cb'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.match(body.client_secret, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(body.client_secret_expires_at, 0);
    assert.equal(body.token_endpoint_auth_method, 'client_secret_post');
    assert.equal(body.client_name, 'Local application');
    const row = await t.runtime.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('id', '=', body.client_id)
      .executeTakeFirstOrThrow();
    assert.equal(row.secret_hash, sha256(body.client_secret));
    assert.ok(!JSON.stringify(row).includes(body.client_secret));
    const client = await findClient(t.runtime, body.client_id);
    assert.ok(client);
    assert.equal(verifyClientSecret(client, body.client_secret), true);
    assert.equal(verifyClientSecret(client, `${body.client_secret}x`), false);
    assert.equal(verifyClientSecret(client, undefined), false);
  });

  it('rule 2: a vendor name (case-insensitive, trimmed) returns the vendor client_id', async () => {
    const res = await post({
      client_name: '  CLAUDE ',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'none',
    });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.equal(body.client_id, 'claude');
    assert.equal(body.client_name, 'Claude');
    assert.deepEqual(body.redirect_uris, ['https://claude.ai/api/mcp/auth_callback']);
    assert.equal(body.token_endpoint_auth_method, 'none');
    assert.equal(body.client_secret, undefined);
    // Registering again gives the same client, never a new row.
    const count = async () =>
      Number(
        (
          await t.runtime.db
            .selectFrom('oauth_clients')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const again = await (
      await post({ client_name: 'claude', redirect_uris: ['https://claude.com/api/mcp/auth_callback'] })
    ).json();
    assert.equal(again.client_id, 'claude');
    assert.equal(await count(), before);
  });

  it('rule 2: a vendor name without redirect_uris gets the vendor client_id and its registered URIs', async () => {
    const res = await post({ client_name: 'Cursor' });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.equal(body.client_id, 'cursor');
    assert.deepEqual(body.redirect_uris, [
      'http://localhost:8787/callback',
      'https://www.cursor.com/agents/mcp/oauth/callback',
      'cursor://anysphere.cursor-mcp/oauth/callback',
    ]);
    assert.equal(body.token_endpoint_auth_method, 'none');
  });

  it('rule 2: ChatGPT per-app callbacks match its prefix entry; VS Code, Cursor match theirs', async () => {
    const chatgpt = await post({
      client_name: 'ChatGPT',
      redirect_uris: ['https://chatgpt.com/connector/oauth/FLLrQdlez6Uf'],
    });
    assert.equal(chatgpt.status, 201);
    assert.equal((await chatgpt.json()).client_id, 'chatgpt');
    const vscode = await post({
      client_name: 'Visual Studio Code',
      redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
    });
    assert.equal(vscode.status, 201);
    assert.equal((await vscode.json()).client_id, 'vscode');
    const cursor = await post({
      client_name: 'Cursor',
      redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'],
    });
    assert.equal(cursor.status, 201);
    assert.equal((await cursor.json()).client_id, 'cursor');
  });

  it('rule 2: a vendor name with a redirect URI the vendor does not own → invalid_redirect_uri', async () => {
    for (const uri of [
      'https://evil.example/callback',
      'https://claude.ai/api/mcp/auth_callback/../x',
      'https://claude.ai/api/mcp/auth_callback?x=1',
    ]) {
      await expectError(
        await post({ client_name: 'Claude', redirect_uris: [uri] }),
        400,
        'invalid_redirect_uri',
      );
    }
    for (const uri of [
      'https://chatgpt.com/connector/oauth/',
      'https://chatgpt.com/connector/oauth/a/b',
      'https://chatgpt.com/connector/oauth/..',
      'https://chatgpt.com/connector/oauth/abc?next=https://evil.example',
      'https://chatgpt.com/connector/oauth/abc%2F..%2Fx',
      'https://chatgpt.com.evil.example/connector/oauth/abc',
    ]) {
      await expectError(
        await post({ client_name: 'ChatGPT', redirect_uris: [uri] }),
        400,
        'invalid_redirect_uri',
      );
    }
  });

  it('rule 3: a fixed HTTPS redirect URI without an integration → invalid_redirect_uri', async () => {
    await expectError(
      await post({ client_name: 'Some Web App', redirect_uris: ['https://app.example/callback'] }),
      400,
      'invalid_redirect_uri',
    );
    // Loopback plus HTTPS is not "every URI loopback".
    await expectError(
      await post({ client_name: 'Mixed', redirect_uris: ['http://127.0.0.1/cb', 'https://app.example/cb'] }),
      400,
      'invalid_redirect_uri',
    );
    // https on a loopback address is not the RFC 8252 loopback form.
    await expectError(await post({ redirect_uris: ['https://127.0.0.1/cb'] }), 400, 'invalid_redirect_uri');
  });

  it('rule 4: anything else → invalid_client_metadata (spec §5.2, not open registration)', async () => {
    await expectError(
      await post({ client_name: 'Unknown Tool', redirect_uris: ['com.example.app:/callback'] }),
      400,
      'invalid_client_metadata',
    );
    for (const uri of [
      'http://127.0.0.1.evil.example/cb',
      'http://localhost@evil.example/cb',
      'http://app.example/cb',
    ]) {
      await expectError(await post({ redirect_uris: [uri] }), 400, 'invalid_client_metadata');
    }
  });

  it('RFC 6749 §3.1.2: a redirect URI with a fragment is refused', async () => {
    await expectError(await post({ redirect_uris: ['http://127.0.0.1/cb#x'] }), 400, 'invalid_redirect_uri');
  });

  it('refuses unsupported metadata values with invalid_client_metadata', async () => {
    const loopback = ['http://127.0.0.1/cb'];
    for (const extra of [
      { token_endpoint_auth_method: 'client_secret_jwt' },
      { token_endpoint_auth_method: 'private_key_jwt' },
      { grant_types: ['implicit'] },
      { grant_types: ['refresh_token'] },
      { response_types: ['token'] },
      { application_type: 'browser' },
      { scope: 'courses:read teleport:write' },
      { client_name: 42 },
      { scope: ['openid'] },
    ]) {
      await expectError(await post({ redirect_uris: loopback, ...extra }), 400, 'invalid_client_metadata');
    }
  });

  it('bad input is a 4xx OAuth error, never a 5xx', async () => {
    let d = await expectError(await post(null, { type: 'text/plain', raw: '{}' }), 400, 'invalid_request');
    assert.match(d, /application\/json/);
    await expectError(
      await post(null, { type: 'application/x-www-form-urlencoded', raw: 'redirect_uris=x' }),
      400,
      'invalid_request',
    );
    d = await expectError(await post(null, { raw: '{"redirect_uris": [' }), 400, 'invalid_request');
    assert.match(d, /JSON/);
    await expectError(await post(null, { raw: '' }), 400, 'invalid_request');
    await expectError(await post(['http://127.0.0.1/cb']), 400, 'invalid_client_metadata');
    await expectError(await post('text'), 400, 'invalid_client_metadata');
    await expectError(await post(null), 400, 'invalid_client_metadata');
    // No redirect URI and no known client_name: rule 4, spec §5.2.1 (not open registration).
    await expectError(await post({}), 400, 'invalid_client_metadata');
    await expectError(await post({ redirect_uris: [] }), 400, 'invalid_client_metadata');
    await expectError(await post({ client_name: 'Unknown Vendor' }), 400, 'invalid_client_metadata');
    await expectError(await post({ redirect_uris: 'http://127.0.0.1/cb' }), 400, 'invalid_redirect_uri');
    await expectError(await post({ redirect_uris: [7] }), 400, 'invalid_redirect_uri');
    const many = Array.from({ length: 11 }, (_, i) => `http://127.0.0.1/cb${i}`);
    await expectError(await post({ redirect_uris: many }), 400, 'invalid_redirect_uri');
    await expectError(
      await post({ redirect_uris: [`http://127.0.0.1/${'a'.repeat(2100)}`] }),
      400,
      'invalid_redirect_uri',
    );
    await expectError(
      await post({ redirect_uris: ['http://127.0.0.1/cb'], client_name: 'x'.repeat(300) }),
      400,
      'invalid_client_metadata',
    );
    await expectError(
      await post({ redirect_uris: ['http://127.0.0.1/cb'], pad: 'x'.repeat(20_000) }),
      413,
      'invalid_request',
    );
  });

  it('ignores unknown metadata fields (RFC 7591 §2)', async () => {
    const res = await post({
      redirect_uris: ['http://127.0.0.1/cb'],
      logo_uri: 'https://x.example/l.png',
      foo: 1,
    });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.equal(body.foo, undefined);
    assert.equal(body.logo_uri, undefined);
  });

  it('answers CORS for browser clients', async () => {
    const res = await t.request('/api/oauth/register', {
      method: 'OPTIONS',
      headers: { Origin: 'https://inspector.example', 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });

  it(`rate-limits registration per client address (${REGISTER_LIMIT} per window) with a 429 OAuth error`, async () => {
    const ip = '192.0.2.99';
    for (let i = 0; i < REGISTER_LIMIT; i++) {
      const res = await post({ client_name: 'nope', redirect_uris: ['x:y'] }, { ip });
      assert.equal(res.status, 400);
    }
    const limited = await post({ redirect_uris: ['http://127.0.0.1/cb'] }, { ip });
    await expectError(limited, 429, 'temporarily_unavailable');
    assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
    const other = await post({ redirect_uris: ['http://127.0.0.1/cb'] }, { ip: '192.0.2.100' });
    assert.equal(other.status, 201);
  });
});

describe('registration limit across instances (README: REDIS_URL shares rate limits)', {
  skip: REDIS_SERVER_AVAILABLE ? undefined : 'redis-server is not installed',
}, () => {
  let redis: OwnRedis;
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    redis = await startOwnRedis();
    const env = { TRUST_PROXY: 'true', REGISTRATION_RATE_LIMIT: '4', REDIS_URL: redis.url };
    a = await createTestApp(env);
    b = await createTestApp(env);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await redis?.kill();
  });

  const register = (t: TestApp, ip: string) =>
    t.request('/api/oauth/register', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'] }),
    });

  it('two instances on one Redis share one count per address: the limit is not doubled', async () => {
    const ip = '192.0.2.150';
    for (const t of [a, b, a, b]) assert.equal((await register(t, ip)).status, 201);
    for (const t of [a, b]) {
      const limited = await register(t, ip);
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('content-type'), 'application/json');
      assert.match(limited.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
      assert.equal((await limited.json()).error, 'temporarily_unavailable');
    }
    assert.equal((await register(b, '192.0.2.151')).status, 201, 'another address is not affected');
  });

  it('parallel registrations from one address across both instances: exactly the limit succeed', async () => {
    const ip = '192.0.2.160';
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => register(i % 2 ? a : b, ip)));
    assert.equal(all.filter((r) => r.status === 201).length, 4);
    assert.equal(all.filter((r) => r.status === 429).length, 6);
  });
});
