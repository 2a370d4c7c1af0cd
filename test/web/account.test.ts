import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../../src/crypto/tokens.ts';
import { DEMO_MEMBER_APP_ID } from '../../src/domain/demo/demo-seed.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { type Browser, obtainTokens } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';
import { assertPageHeaders, locationOf, signedIn, submit, userinfoStatus } from './pages-support.ts';

const B = TEST_BASE_URL;

describe('/account: a person’s own connected apps (product.md §8)', () => {
  let t: TestApp;
  let student: Browser;

  before(async () => {
    t = await createTestApp();
    await createWorld(t);
    student = await signedIn(t, 'student@example.com');
  });
  after(() => t.close());

  const grantOf = async (accessToken: string) =>
    (
      await t.runtime.db
        .selectFrom('oauth_tokens')
        .select('grant_id')
        .where('token_hash', '=', sha256(accessToken))
        .executeTakeFirstOrThrow()
    ).grant_id;

  it('nobody signed in is sent to /login and back', async () => {
    const res = await t.request('/account');
    assert.equal(res.status, 302);
    assert.equal(locationOf(res), '/login?return_to=%2Faccount');
  });

  it('shows the name, email, schools, a sign-out form and no admin link for a student', async () => {
    const res = await student.request('/account');
    assert.equal(res.status, 200);
    assertPageHeaders(res);
    const html = await res.text();
    assert.match(html, /id="account-name">Sam Student</);
    assert.match(html, /id="account-email">student@example\.com</);
    assert.match(html, /Demo Academy <span class="muted">\(student\)<\/span>/);
    assert.match(
      html,
      /<form class="inline" method="post" action="\/logout"><input type="hidden" name="csrf_token"/,
    );
    assert.ok(!html.includes('href="/admin"'));
    assert.match(html, /No connected apps/);
  });

  it('the sign-out button works with its CSRF token', async () => {
    const browser = await signedIn(t, 'student@example.com');
    const res = await submit(browser, '/account', '/logout', {});
    assert.equal(res.status, 303);
    assert.equal((await browser.request('/account')).status, 302);
  });

  it('lists the person’s connections with plain-language scopes, and revokes their own after confirming', async () => {
    const tokens = await obtainTokens(t, {
      clientId: DEMO_MEMBER_APP_ID,
      scopes: ['openid', 'account:read'],
      resource: B,
      browser: student,
    });
    const html = await (await student.request('/account')).text();
    assert.match(html, /Demo Member App/);
    assert.match(html, /Your courses, progress, orders and event registrations: view/);
    const grant = await grantOf(tokens.access_token);
    // The list links to a confirmation page: nothing is revoked by a GET.
    const confirmPath = `/account/connections/revoke?grant=${grant}`;
    assert.ok(html.includes(`href="${confirmPath}"`));
    const confirm = await student.request(confirmPath);
    assert.equal(confirm.status, 200);
    assertPageHeaders(confirm);
    const page = await confirm.text();
    assert.match(page, /<h1>Disconnect Demo Member App\?<\/h1>/);
    assert.match(page, /stops acting for you at Demo Academy at once/);
    assert.ok(page.includes(`name="grant" value="${grant}"`));
    assert.match(page, /<a href="\/account">Cancel<\/a>/);
    assert.equal(await userinfoStatus(t, tokens.access_token), 200, 'the confirmation page revokes nothing');

    const res = await submit(student, confirmPath, '/account/connections/revoke', { grant });
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), '/account?done=revoked');
    assert.equal(await userinfoStatus(t, tokens.access_token), 401);
    assert.match(await (await student.request('/account?done=revoked')).text(), /The app was disconnected/);
  });

  it('cannot revoke someone else’s connection', async () => {
    const owners = await obtainTokens(t, {
      clientId: DEMO_MEMBER_APP_ID,
      scopes: ['openid', 'account:read'],
      resource: B,
      user: 'owner@example.com',
    });
    const grant = await grantOf(owners.access_token);
    // Neither the confirmation page nor the POST finds another person's grant.
    const confirm = await student.request(`/account/connections/revoke?grant=${grant}`);
    assert.equal(confirm.status, 303);
    assert.equal(locationOf(confirm), '/account?done=not-found');
    const res = await submit(student, '/account', '/account/connections/revoke', { grant });
    assert.equal(locationOf(res), '/account?done=not-found');
    assert.equal(await userinfoStatus(t, owners.access_token), 200);
    const owner = await signedIn(t, 'owner@example.com');
    const ownPage = await (await owner.request('/account')).text();
    assert.ok(ownPage.includes(`grant=${grant}"`));
    assert.ok(ownPage.includes('href="/admin"'), 'an operator gets a link to the admin area');
  });

  it('a forged revoke without the CSRF token is refused (403) and revokes nothing', async () => {
    const tokens = await obtainTokens(t, {
      clientId: DEMO_MEMBER_APP_ID,
      scopes: ['openid'],
      resource: B,
      browser: student,
    });
    const grant = await grantOf(tokens.access_token);
    const forged = await student.postForm('/account/connections/revoke', { grant });
    assert.equal(forged.status, 403);
    const wrong = await student.postForm('/account/connections/revoke', {
      grant,
      csrf_token: 'A'.repeat(43),
    });
    assert.equal(wrong.status, 403);
    assert.equal(await userinfoStatus(t, tokens.access_token), 200);
  });

  it('a signed-out POST is sent to sign in, not executed', async () => {
    const res = await t.request('/account/connections/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant=x',
    });
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), '/login?return_to=%2Faccount');
  });
});
