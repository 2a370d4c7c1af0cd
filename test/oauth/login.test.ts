import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SESSION_COOKIE } from '../../src/http/sessions.ts';
import { safeReturnTo } from '../../src/web/login.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { DAY, HOUR, MINUTE } from '../support/clock.ts';
import { Browser, formFields, pkcePair, registerLoopbackClient, signIn } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';

const B = TEST_BASE_URL;

describe('/login and /logout', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ TRUST_PROXY: 'true' });
    await createWorld(t);
  });
  after(() => t.close());

  it('the form: email autocomplete=username, password autocomplete=current-password, CSRF token, labels, no framing', async () => {
    const res = await new Browser(t).request('/login');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.match(res.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
    assert.match(res.headers.get('content-security-policy')!, /default-src 'none'/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const page = await res.text();
    assert.match(page, /<label for="email">Email<\/label>/);
    assert.match(page, /<input id="email" name="email" type="email" autocomplete="username" required/);
    assert.match(page, /<label for="password">Password<\/label>/);
    assert.match(
      page,
      /<input id="password" name="password" type="password" autocomplete="current-password" required>/,
    );
    assert.match(formFields(page).get('csrf_token')!, /^[A-Za-z0-9_-]{43}$/);
    assert.doesNotMatch(page, /(src|href)="https?:/, 'no external resources');
  });

  it('a good sign-in sets an HttpOnly, SameSite=Lax session cookie and goes to return_to', async () => {
    const browser = new Browser(t);
    const res = await signIn(browser, 'student@example.com', { returnTo: '/oauth/authorize?x=1' });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/oauth/authorize?x=1');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Path=\//);
    assert.doesNotMatch(cookie, /Secure/, 'http BASE_URL');
    const token = cookie.split(';')[0].split('=')[1];
    const stored = await t.runtime.db.selectFrom('sessions').selectAll().execute();
    assert.ok(stored.length > 0);
    assert.ok(
      stored.every((s) => s.id_hash !== token),
      'stored hashed',
    );
  });

  it('Secure cookies when BASE_URL is https', async () => {
    const secure = await createTestApp({ BASE_URL: 'https://lectern.example' });
    try {
      await createWorld(secure);
      const res = await signIn(new Browser(secure), 'student@example.com');
      assert.equal(res.status, 303);
      // Named with the __Host- prefix there; exact headers in cookies.test.ts.
      assert.match(
        res.headers.getSetCookie().find((c) => c.startsWith(`__Host-${SESSION_COOKIE}=`))!,
        /Secure/,
      );
    } finally {
      await secure.close();
    }
  });

  it('a wrong password or unknown email gets one generic message (no account enumeration)', async () => {
    for (const email of ['student@example.com', 'nobody@example.com']) {
      const res = await signIn(new Browser(t), email, { password: 'wrong-password' });
      assert.equal(res.status, 401);
      const page = await res.text();
      assert.match(page, /Email or password is incorrect\./);
      assert.equal(
        res.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`)),
        false,
      );
    }
  });

  it('CSRF: a login POST without the token, or with another browser’s, is refused (login CSRF)', async () => {
    const browser = new Browser(t);
    await browser.request('/login');
    const res = await browser.postForm('/login', { email: 'student@example.com', password: 'demo-password' });
    assert.equal(res.status, 403);
    assert.equal(
      res.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`)),
      false,
    );
    const other = new Browser(t);
    const token = formFields(await (await other.request('/login')).text()).get('csrf_token')!;
    const foreign = await browser.postForm('/login', {
      csrf_token: token,
      email: 'student@example.com',
      password: 'demo-password',
    });
    assert.equal(foreign.status, 403);
  });

  it('session fixation: signing in again replaces the session id and ends the old one', async () => {
    const browser = new Browser(t);
    await signIn(browser, 'student@example.com');
    const before = browser.cookies.get(SESSION_COOKIE)!;
    await signIn(browser, 'owner@example.com');
    const after = browser.cookies.get(SESSION_COOKIE)!;
    assert.notEqual(before, after);
    const replay = new Browser(t);
    replay.cookies.set(SESSION_COOKIE, before);
    const res = await replay.request('/login?return_to=/somewhere');
    assert.equal(res.status, 200, 'the old session no longer signs anyone in');
  });

  it('sessions end after their expiry (idle 12 h, absolute 7 days)', async () => {
    const { SESSION_ABSOLUTE_SECONDS, SESSION_IDLE_SECONDS } = await import('../../src/http/sessions.ts');
    assert.equal(SESSION_IDLE_SECONDS, 12 * 3600);
    assert.equal(SESSION_ABSOLUTE_SECONDS, 7 * 24 * 3600);
    const browser = new Browser(t);
    await signIn(browser, 'student@example.com');
    assert.equal((await browser.request('/login?return_to=/x')).status, 303, 'signed in');
    const { sha256 } = await import('../../src/crypto/tokens.ts');
    const idHash = sha256(browser.cookies.get(SESSION_COOKIE)!);
    const row = await t.runtime.db
      .selectFrom('sessions')
      .selectAll()
      .where('id_hash', '=', idHash)
      .executeTakeFirstOrThrow();
    assert.equal(Date.parse(row.expires_at) - Date.parse(row.created_at), SESSION_IDLE_SECONDS * 1000);
    // Idle past 12 hours but within the absolute lifetime: sliding refreshes only on use, so it is over.
    const idle = await t.clock.travel(SESSION_IDLE_SECONDS * 1000 + 1000, () =>
      browser.request('/login?return_to=/x'),
    );
    assert.equal(idle.status, 200, 'signed out by expiry');
    assert.equal(
      await t.runtime.db
        .selectFrom('sessions')
        .select('id_hash')
        .where('id_hash', '=', idHash)
        .executeTakeFirst(),
      undefined,
    );
  });

  it('sliding never passes the absolute lifetime', async () => {
    const browser = new Browser(t);
    await signIn(browser, 'student@example.com');
    const { sha256 } = await import('../../src/crypto/tokens.ts');
    const idHash = sha256(browser.cookies.get(SESSION_COOKIE)!);
    const { created_at: created } = await t.runtime.db
      .selectFrom('sessions')
      .select('created_at')
      .where('id_hash', '=', idHash)
      .executeTakeFirstOrThrow();
    // Used every 11 hours (never idle for 12) until a minute before the absolute lifetime ends.
    const lastUse = 7 * DAY - MINUTE;
    let moved = 0;
    try {
      while (moved < lastUse) {
        const step = Math.min(11 * HOUR, lastUse - moved);
        t.clock.advance(step);
        moved += step;
        assert.equal((await browser.request('/login?return_to=/x')).status, 303);
      }
    } finally {
      t.clock.advance(-moved);
    }
    const row = await t.runtime.db
      .selectFrom('sessions')
      .selectAll()
      .where('id_hash', '=', idHash)
      .executeTakeFirstOrThrow();
    assert.equal(Date.parse(row.expires_at), Date.parse(created) + 7 * 24 * 3600 * 1000);
  });

  it('return_to is same-origin relative only (open-redirect defence)', async () => {
    for (const evil of [
      'https://evil.example/x',
      '//evil.example/x',
      '/\\evil.example',
      '\\\\evil.example',
      'javascript:alert(1)',
      '/ok\n//evil',
      'http://lectern.test/x',
      // Dot segments that collapse into a protocol-relative URL once normalised.
      '/..//evil.example/x',
      '/.//evil.example/x',
      '/%2e//evil.example/x',
      '/a/..//evil.example',
    ]) {
      assert.equal(safeReturnTo(evil, B), undefined, evil);
    }
    assert.equal(safeReturnTo('/oauth/authorize?a=1&b=2', B), '/oauth/authorize?a=1&b=2');
    // Refused, the person lands where they would without one (a student: their learning area).
    const res = await signIn(new Browser(t), 'student@example.com', { returnTo: 'https://evil.example' });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/schools/demo/learn');
    const res2 = await signIn(new Browser(t), 'student@example.com', { returnTo: '//evil.example' });
    assert.equal(res2.headers.get('location'), '/schools/demo/learn');
  });

  it('logout is a CSRF-protected POST that ends the session', async () => {
    const browser = new Browser(t);
    await signIn(browser, 'student@example.com');
    const sid = browser.cookies.get(SESSION_COOKIE)!;
    const refused = await browser.postForm('/logout', {});
    assert.equal(refused.status, 403);
    assert.equal(browser.cookies.get(SESSION_COOKIE), sid);
    // The session-bound token is what every signed-in form carries; the consent page shows one.
    const owner = new Browser(t);
    await signIn(owner, 'owner@example.com');
    const client = (await registerLoopbackClient(t)).client_id;
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: client,
      redirect_uri: 'http://127.0.0.1/callback',
      scope: 'openid',
      state: 's',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      prompt: 'consent',
    });
    const token = formFields(await (await owner.request(`/oauth/authorize?${q}`)).text()).get('csrf_token')!;
    const ok = await owner.postForm('/logout', { csrf_token: token });
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get('location'), '/login');
    assert.equal(owner.cookies.has(SESSION_COOKIE), false);
    const again = await owner.request(`/oauth/authorize?${q}`);
    assert.equal(again.status, 302);
    assert.match(again.headers.get('location')!, /^\/login\?return_to=/);
  });

  it('throttled per account: after 5 failures even the right password gets 429 with Retry-After', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await signIn(new Browser(t), 'lecturer@example.com', { password: `wrong-${i}` });
      assert.equal(res.status, 401);
    }
    const res = await signIn(new Browser(t), 'lecturer@example.com');
    assert.equal(res.status, 429);
    const retry = Number(res.headers.get('retry-after'));
    assert.ok(retry > 0 && retry <= 900, String(retry));
    assert.match(await res.text(), /Too many failed sign-ins/);
  });

  it('throttled per client address across accounts', async () => {
    const ip = '203.0.113.9';
    const attempt = async (email: string, password: string) => {
      const browser = new Browser(t);
      const fields = formFields(await (await browser.request('/login')).text());
      fields.set('email', email);
      fields.set('password', password);
      return browser.request('/login', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
        body: fields.toString(),
      });
    };
    for (let i = 0; i < 50; i++) assert.equal((await attempt(`user${i}@example.com`, 'x')).status, 401);
    assert.equal((await attempt('student@example.com', 'demo-password')).status, 429);
  });

  it('a non-form POST is refused with a page, not a 5xx', async () => {
    const res = await t.request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(res.status, 415);
  });
});
