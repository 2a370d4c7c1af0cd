import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { Browser, signIn } from '../support/oauth-flow.ts';
import { csrfOf, locationOf, signedIn } from './pages-support.ts';

describe('where /login lands after a successful sign-in', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await seedDemoData(t.runtime.db);
  });
  after(() => t.close());

  it('an owner (an operator at a school) lands on /admin, which opens the console', async () => {
    const browser = new Browser(t);
    const res = await signIn(browser, 'owner@example.com');
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), '/admin');
    const console = await browser.request('/admin');
    assert.ok([200, 302, 303].includes(console.status), `GET /admin: ${console.status}`);
  });

  it('a student of one school (no other role anywhere) lands in its learning area', async () => {
    const res = await signIn(new Browser(t), 'student@example.com');
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), '/schools/demo/learn');
  });

  it('a lecturer is staff too: the console, where their courses are', async () => {
    const browser = new Browser(t);
    const res = await signIn(browser, 'lecturer@example.com');
    assert.equal(locationOf(res), '/admin');
    const picked = await browser.request('/admin');
    assert.equal(picked.status, 302);
    assert.match(locationOf(picked) ?? '', /^\/admin\/sch_[0-9a-z]+$/);
  });

  it('return_to still wins, for staff and students alike', async () => {
    for (const email of ['owner@example.com', 'student@example.com']) {
      const res = await signIn(new Browser(t), email, { returnTo: '/account/settings' });
      assert.equal(res.status, 303);
      assert.equal(locationOf(res), '/account/settings', email);
    }
  });

  it('only a POST signs out: GET /logout is no route (404, as a wrong method on any page), session or not', async () => {
    const browser = await signedIn(t, 'student@example.com');
    // A wrong method on the app's other pages answers the same "Page not found".
    const wrongMethod = await browser.request('/account', {
      method: 'DELETE',
      headers: { accept: 'text/html' },
    });
    assert.equal(wrongMethod.status, 404);
    for (const who of [browser, new Browser(t)]) {
      const res = await who.request('/logout', { headers: { accept: 'text/html' } });
      assert.equal(res.status, 404);
      const html = await res.text();
      assert.ok(html.includes('<h1>Page not found</h1>'));
      assert.ok(html.includes('There is no page at <code>/logout</code>.'));
      assert.ok(!html.includes('Sign-out failed'));
    }
    // The GET ended nothing; the form's POST still signs out.
    const csrf = await csrfOf(browser, '/account');
    const out = await browser.postForm('/logout', { csrf_token: csrf });
    assert.equal(out.status, 303);
    assert.equal(locationOf(out), '/login');
    assert.equal((await browser.request('/account', { headers: { accept: 'text/html' } })).status, 302);
  });
});
