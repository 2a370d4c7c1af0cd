/**
 * Browser cookies (session and pre-login CSRF): HttpOnly, SameSite=Lax, Path=/, and over an
 * https BASE_URL Secure with the `__Host-` prefix (RFC 6265bis §4.1.3.2: Secure, Path=/, no
 * Domain, so no sibling host or plain-http page can set or shadow them). On http the names stay
 * unprefixed: browsers refuse a `__Host-` cookie without Secure.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import { Browser, formFields, obtainTokens, registerLoopbackClient, signIn } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';

const VALUE = '[A-Za-z0-9_-]{43}';

for (const [scheme, baseUrl, prefix, secure] of [
  ['http', 'http://lectern.test', '', ''],
  ['https', 'https://lectern.example', '__Host-', '; Secure'],
] as const) {
  describe(`cookies with an ${scheme} BASE_URL`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp({ BASE_URL: baseUrl });
      await createWorld(t);
    });
    after(() => t.close());

    it(`GET /login sets the CSRF cookie as ${prefix}lectern_csrf, exactly`, async () => {
      const res = await new Browser(t).request('/login');
      assert.equal(res.status, 200);
      const cookies = res.headers.getSetCookie();
      assert.equal(cookies.length, 1, cookies.join('\n'));
      assert.match(
        cookies[0],
        new RegExp(
          `^${prefix}lectern_csrf=${VALUE}; Max-Age=86400; Path=/; HttpOnly${secure}; SameSite=Lax$`,
        ),
      );
    });

    it(`signing in sets ${prefix}lectern_session, signing out clears it, exactly`, async () => {
      const browser = new Browser(t);
      const res = await signIn(browser, 'student@example.com');
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/schools/demo/learn');
      const cookies = res.headers.getSetCookie();
      assert.equal(cookies.length, 1, cookies.join('\n'));
      assert.match(
        cookies[0],
        new RegExp(
          `^${prefix}lectern_session=${VALUE}; Max-Age=604800; Path=/; HttpOnly${secure}; SameSite=Lax$`,
        ),
      );
      assert.deepEqual([...browser.cookies.keys()].sort(), [
        `${prefix}lectern_csrf`,
        `${prefix}lectern_session`,
      ]);

      const account = await browser.request('/account');
      assert.equal(account.status, 200, 'the session cookie signs the browser in');
      const out = await browser.postForm('/logout', formFields(await account.text(), '/logout'));
      assert.equal(out.status, 303);
      assert.deepEqual(out.headers.getSetCookie(), [
        `${prefix}lectern_session=; Max-Age=0; Path=/; HttpOnly${secure}; SameSite=Lax`,
      ]);
      assert.equal((await browser.request('/account')).status, 302, 'signed out');
    });

    it('sign-in and consent complete an authorization code flow', async () => {
      const client = await registerLoopbackClient(t);
      const tokens = await obtainTokens(t, {
        clientId: client.client_id,
        scopes: ['openid', 'courses:read'],
        user: 'owner@example.com',
      });
      assert.equal(tokens.token_type, 'Bearer');
      assert.equal(tokens.scope, 'openid courses:read');
      assert.ok(tokens.id_token);
    });
  });
}
