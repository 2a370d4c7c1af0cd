import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ALL_SCOPES } from '../../src/oauth/scopes.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';

const B = TEST_BASE_URL;

describe('discovery documents', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('RFC 8414 §2: authorization-server metadata lists every endpoint and capability, issuer = BASE_URL', async () => {
    const res = await t.request('/.well-known/oauth-authorization-server');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('cache-control'), 'public, max-age=3600');
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(await res.json(), {
      issuer: B,
      authorization_endpoint: `${B}/oauth/authorize`,
      token_endpoint: `${B}/api/oauth/token`,
      userinfo_endpoint: `${B}/api/oauth/userinfo`,
      revocation_endpoint: `${B}/api/oauth/revoke`,
      introspection_endpoint: `${B}/api/oauth/introspect`,
      registration_endpoint: `${B}/api/oauth/register`,
      jwks_uri: `${B}/jwks.json`,
      scopes_supported: [...ALL_SCOPES],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      introspection_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      id_token_signing_alg_values_supported: ['ES256'],
      subject_types_supported: ['public'],
      claims_supported: [
        'iss',
        'aud',
        'exp',
        'iat',
        'auth_time',
        'nonce',
        'sub',
        'email',
        'name',
        'org_id',
        'roles',
      ],
      claims_parameter_supported: false,
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      protected_resources: [B, `${B}/mcp`, `${B}/account/graphql`],
      service_documentation: `${B}/auth.md`,
      ui_locales_supported: ['en'],
    });
  });

  it('OpenID Connect Discovery §4 answers the same facts', async () => {
    const a = await (await t.request('/.well-known/oauth-authorization-server')).text();
    const res = await t.request('/.well-known/openid-configuration');
    assert.equal(res.status, 200);
    assert.equal(await res.text(), a);
  });

  it('issuer is BASE_URL exactly, also with an https BASE_URL', async () => {
    const other = await createTestApp({ BASE_URL: 'https://school.example.org/' });
    try {
      const body = await (await other.request('/.well-known/openid-configuration')).json();
      assert.equal(body.issuer, 'https://school.example.org');
      assert.equal(body.token_endpoint, 'https://school.example.org/api/oauth/token');
    } finally {
      await other.close();
    }
  });

  it('RFC 9728 §2: protected-resource metadata names BASE_URL as resource and server, and no scope list no client could hold', async () => {
    const res = await t.request('/.well-known/oauth-protected-resource');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.equal(res.headers.get('cache-control'), 'public, max-age=3600');
    // scopes_supported is optional (RFC 9728 §2); MCP clients would ask for all of it at once.
    assert.deepEqual(await res.json(), {
      resource: B,
      authorization_servers: [B],
      bearer_methods_supported: ['header'],
      resource_documentation: `${B}/auth.md`,
      resource_name: 'Lectern',
    });
  });

  it('RFC 9728 §3.3: each path-suffixed document names its own resource, all served by this one authorization server', async () => {
    const names = { '/mcp': 'Lectern MCP server', '/account/graphql': 'Lectern Account API' };
    for (const [path, name] of Object.entries(names)) {
      const res = await t.request(`/.well-known/oauth-protected-resource${path}`);
      assert.equal(res.status, 200, path);
      assert.deepEqual(await res.json(), {
        resource: `${B}${path}`,
        authorization_servers: [B],
        bearer_methods_supported: ['header'],
        resource_documentation: `${B}/auth.md`,
        resource_name: name,
      });
    }
    assert.equal((await t.request('/.well-known/oauth-protected-resource/other')).status, 404);
  });

  it('answers CORS preflights for browser clients', async () => {
    const res = await t.request('/.well-known/oauth-authorization-server', {
      method: 'OPTIONS',
      headers: { Origin: 'https://inspector.example', 'Access-Control-Request-Method': 'GET' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('access-control-allow-methods') ?? '', /GET/);
  });

  it('RFC 7517 §5: the JWK Set holds public ES256 keys with kid, use and alg, never private parts', async () => {
    const res = await t.request('/jwks.json');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/jwk-set+json');
    assert.equal(res.headers.get('cache-control'), 'public, max-age=300');
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    const { keys } = await res.json();
    assert.equal(keys.length, 1);
    const [key] = keys;
    assert.deepEqual(Object.keys(key).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    assert.equal(key.kty, 'EC');
    assert.equal(key.crv, 'P-256');
    assert.equal(key.alg, 'ES256');
    assert.equal(key.use, 'sig');
    assert.match(key.kid, /^[A-Za-z0-9_-]{43}$/);
  });
});
