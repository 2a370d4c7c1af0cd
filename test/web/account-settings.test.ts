import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO_PASSWORD, seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { createTestApp, TEST_BASE_URL } from '../support/app.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';
import { Browser, signIn } from '../support/oauth-flow.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { assertPageHeaders, locationOf, signedIn, submit } from './pages-support.ts';

const PAGE = '/account/settings';

describe('/account/settings: name, password and other sessions', () => {
  let smtp: TestSmtpServer;
  let t: LoggedTestApp;

  before(async () => {
    smtp = await startTestSmtpServer();
    t = await createLoggedTestApp({ SMTP_URL: smtp.url });
    await seedDemoData(t.runtime.db);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  it('nobody signed in is sent to /login and back; the account page links here', async () => {
    const res = await t.request(PAGE);
    assert.equal(res.status, 302);
    assert.equal(locationOf(res), '/login?return_to=%2Faccount%2Fsettings');
    const student = await signedIn(t, 'student@example.com');
    assert.match(await (await student.request('/account')).text(), /<a href="\/account\/settings">/);
    const page = await student.request(PAGE);
    assert.equal(page.status, 200);
    assertPageHeaders(page);
    const html = await page.text();
    assert.match(html, /value="Sam Student"/);
    assert.match(html, /You are signed in only here\./);
  });

  it('changes the name (POST-redirect-GET) and refuses an empty or overlong one', async () => {
    const student = await signedIn(t, 'student@example.com');
    const res = await submit(student, PAGE, '/account/name', { name: '  Samantha Student  ' });
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `${PAGE}?done=name`);
    assert.match(await (await student.request(`${PAGE}?done=name`)).text(), /Your name was changed\./);
    assert.equal((await findUserByEmail(t.runtime.db, 'student@example.com'))?.name, 'Samantha Student');
    const refusals: Array<[string, RegExp]> = [
      ['   ', /<p class="field-error" id="name-error">Enter your name\.<\/p>/],
      [
        'x'.repeat(201),
        /<p class="field-error" id="name-error">Enter a name of at most 200 characters\.<\/p>/,
      ],
      [
        'a\u0000b',
        /<p class="field-error" id="name-error">A name cannot contain control or text-direction characters\./,
      ],
      [
        'a\u202eb',
        /<p class="field-error" id="name-error">A name cannot contain control or text-direction characters\./,
      ],
    ];
    for (const [name, words] of refusals) {
      const bad = await submit(student, PAGE, '/account/name', { name });
      assert.equal(bad.status, 400);
      assert.match(await bad.text(), words);
    }
    assert.equal((await findUserByEmail(t.runtime.db, 'student@example.com'))?.name, 'Samantha Student');
  });

  it('changes the password with the current one, signs out the other sessions only, and mails a notice', async () => {
    const here = await signedIn(t, 'lecturer@example.com');
    const elsewhere = await signedIn(t, 'lecturer@example.com');
    assert.match(await (await here.request(PAGE)).text(), /in 1 other browser\./);

    const wrong = await submit(here, PAGE, '/account/password', {
      current: 'not-the-password',
      password: 'brand-new-password',
      confirm: 'brand-new-password',
    });
    assert.equal(wrong.status, 400);
    assert.match(await wrong.text(), /The current password is not right/);
    const short = await submit(here, PAGE, '/account/password', {
      current: DEMO_PASSWORD,
      password: 'short',
      confirm: 'short',
    });
    assert.equal(short.status, 400);

    const res = await submit(here, PAGE, '/account/password', {
      current: DEMO_PASSWORD,
      password: 'brand-new-password',
      confirm: 'brand-new-password',
    });
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `${PAGE}?done=password`);
    assert.equal((await here.request(PAGE)).status, 200, 'this session stays');
    assert.equal((await elsewhere.request(PAGE)).status, 302, 'the other session ended');
    assert.equal((await signIn(new Browser(t), 'lecturer@example.com')).status, 401);
    assert.equal(
      (await signIn(new Browser(t), 'lecturer@example.com', { password: 'brand-new-password' })).status,
      303,
    );
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes('lecturer@example.com'));
    assert.equal(mail.subject, 'Your Demo Academy password was changed');
    assert.match(mail.text, /was just changed/);
    assert.ok(mail.text.includes(`${TEST_BASE_URL}/password-reset`));
    assert.ok(mail.html.length > 0);
    const events = t.logs.filter((l) => typeof l.event === 'string' && l.userId !== undefined);
    assert.ok(events.some((l) => l.event === 'password.changed'));
    assert.ok(
      events.some(
        (l) => l.event === 'sessions.revoked' && l.reason === 'password_changed' && l.sessions === 1,
      ),
    );
    assert.ok(!JSON.stringify(t.logs).includes('brand-new-password'), 'no password in the logs');
  });

  it('throttles wrong current passwords per person (a borrowed session cannot guess)', async () => {
    const owner = await signedIn(t, 'other-owner@example.com');
    for (let i = 0; i < 5; i++) {
      const res = await submit(owner, PAGE, '/account/password', {
        current: `guess-${i}`,
        password: 'whatever-123',
        confirm: 'whatever-123',
      });
      assert.equal(res.status, 400);
    }
    const res = await submit(owner, PAGE, '/account/password', {
      current: DEMO_PASSWORD,
      password: 'whatever-123',
      confirm: 'whatever-123',
    });
    assert.equal(res.status, 429);
    assert.match(await res.text(), /Too many wrong current passwords/);
  });

  it('signs out the other sessions and keeps this one', async () => {
    const here = await signedIn(t, 'owner@example.com');
    const a = await signedIn(t, 'owner@example.com');
    const b = await signedIn(t, 'owner@example.com');
    const other = await signedIn(t, 'other-student@example.com');
    assert.match(await (await here.request(PAGE)).text(), /in 2 other browsers\./);
    const res = await submit(here, PAGE, '/account/sessions/sign-out-others', {});
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `${PAGE}?done=sessions`);
    assert.equal((await here.request(PAGE)).status, 200);
    assert.equal((await a.request(PAGE)).status, 302);
    assert.equal((await b.request(PAGE)).status, 302);
    assert.equal((await other.request(PAGE)).status, 200, 'someone else’s session is untouched');
    assert.match(
      await (await here.request(`${PAGE}?done=sessions`)).text(),
      /Your other sessions were signed out\./,
    );
  });

  it('refuses forms without the session’s CSRF token, and bodies that are not forms', async () => {
    const student = await signedIn(t, 'student@example.com');
    for (const action of ['/account/name', '/account/password', '/account/sessions/sign-out-others']) {
      const forged = await student.postForm(action, {
        name: 'Mallory',
        current: DEMO_PASSWORD,
        password: 'x'.repeat(10),
        confirm: 'x'.repeat(10),
      });
      assert.equal(forged.status, 403, action);
      // Refused once, by the account area's middleware, and shown in the area's own chrome.
      const refusal = await forged.text();
      assert.ok(refusal.includes('<h1>Form expired</h1>'), action);
      assert.ok(refusal.includes('<a href="/account/settings">Settings</a>'), action);
      assert.ok(refusal.includes('<p><a href="/account">Go to your account</a></p>'), action);
      const json = await student.request(action, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(json.status, 415, action);
    }
    assert.notEqual((await findUserByEmail(t.runtime.db, 'student@example.com'))?.name, 'Mallory');
  });

  it('the Account API shares the /account prefix: a path it does not answer is its 404, not a sign-in page', async () => {
    const res = await t.request('/account/graphql/nope', { headers: { accept: 'application/json' } });
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  });
});

describe('/account/settings without SMTP_URL', () => {
  it('changes the password and sends nothing', async () => {
    const t = await createTestApp();
    try {
      await seedDemoData(t.runtime.db);
      const browser = await signedIn(t, 'student@example.com');
      const res = await submit(browser, PAGE, '/account/password', {
        current: DEMO_PASSWORD,
        password: 'another-password',
        confirm: 'another-password',
      });
      assert.equal(res.status, 303);
    } finally {
      await t.close();
    }
  });
});
