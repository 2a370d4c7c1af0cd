import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import { Browser, registerLoopbackClient, signIn } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';

/** Never a 5xx on bad input: a deterministic sweep of odd values over every flow endpoint. */
describe('bad input across the flow endpoints', () => {
  let t: TestApp;
  let client: string;
  let browser: Browser;
  before(async () => {
    t = await createTestApp();
    await createWorld(t);
    client = (await registerLoopbackClient(t)).client_id;
    browser = new Browser(t);
    await signIn(browser, 'owner@example.com');
  });
  after(() => t.close());

  const odd = [
    '',
    ' ',
    '%',
    '%zz',
    '\u0000',
    '\ud800',
    'é',
    '"><script>alert(1)</script>',
    'a'.repeat(3000),
    'http://127.0.0.1:99999/callback',
    'http://[::1/x',
    'javascript:alert(1)',
    '../../etc/passwd',
    'null',
    '[]',
    '{}',
  ];
  const names = [
    'response_type',
    'client_id',
    'redirect_uri',
    'scope',
    'state',
    'code_challenge',
    'code_challenge_method',
    'resource',
    'nonce',
    'prompt',
    'org_id',
  ];
  const good = () =>
    new URLSearchParams({
      response_type: 'code',
      client_id: client,
      redirect_uri: 'http://127.0.0.1:5000/callback',
      scope: 'openid',
      state: 's',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
    });

  it('GET /oauth/authorize with each parameter set to odd values (signed in and not)', async () => {
    for (const who of [browser, new Browser(t)]) {
      for (const name of names) {
        for (const value of odd) {
          const q = good();
          q.set(name, value);
          const res = await who.request(`/oauth/authorize?${q}`);
          assert.ok(res.status < 500, `${res.status} for ${name}=${JSON.stringify(value.slice(0, 20))}`);
          await res.arrayBuffer();
        }
      }
    }
    const raw = await browser.request('/oauth/authorize?%E0%A4%A&client_id=%FF&&&=&redirect_uri');
    assert.ok(raw.status < 500);
  });

  it('POST endpoints with odd fields and odd bodies', async () => {
    const fields = [
      'grant_type',
      'code',
      'refresh_token',
      'redirect_uri',
      'client_id',
      'client_secret',
      'code_verifier',
      'resource',
      'scope',
      'token',
      'token_type_hint',
    ];
    const paths = [
      '/api/oauth/token',
      '/api/oauth/revoke',
      '/api/oauth/introspect',
      '/login',
      '/logout',
      '/oauth/authorize',
    ];
    for (const path of paths) {
      for (const field of fields) {
        for (const value of odd) {
          const body = new URLSearchParams({
            grant_type: 'refresh_token',
            client_id: client,
            token: 'x',
            refresh_token: 'x',
          });
          body.set(field, value);
          const res = await browser.request(path, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: body.toString(),
          });
          assert.ok(
            res.status < 500,
            `${path} ${res.status} for ${field}=${JSON.stringify(value.slice(0, 20))}`,
          );
          await res.arrayBuffer();
        }
      }
      for (const [type, body] of [
        ['application/json', '{"grant_type":'],
        ['application/x-www-form-urlencoded', randomBytes(512)],
        ['text/html', '<x>'],
        ['', ''],
        ['application/x-www-form-urlencoded; charset=latin1', 'a=%E9'],
      ] as const) {
        const res = await browser.request(path, {
          method: 'POST',
          headers: type ? { 'content-type': type } : {},
          body: body as BodyInit,
        });
        assert.ok(res.status < 500, `${path} ${res.status} for ${type}`);
        if (path.startsWith('/api/')) assert.equal(typeof (await res.json()).error, 'string');
      }
    }
  });
});
