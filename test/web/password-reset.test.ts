import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../../src/crypto/tokens.ts';
import { DEMO_MEMBER_APP_ID, DEMO_PASSWORD, seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { ensureMembership } from '../../src/domain/school/memberships.ts';
import {
  createPasswordReset,
  PASSWORD_RESET_SECONDS,
  purgePasswordResets,
} from '../../src/domain/school/password-resets.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { ACCOUNT_FAILURE_LIMIT } from '../../src/web/login.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { HOUR, SECOND } from '../support/clock.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';
import { Browser, formFields, obtainTokens, signIn } from '../support/oauth-flow.ts';
import { linkIn, type ReceivedMail, startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { assertPageHeaders, locationOf, signedIn, userinfoStatus } from './pages-support.ts';

const RESET_PREFIX = `${TEST_BASE_URL}/password-reset/`;
const NEW_PASSWORD = 'a-new-password-42';

/** Asks for a reset link through the real form, from its own browser (own CSRF cookie). */
async function requestReset(t: TestApp, email: string, address?: string): Promise<Response> {
  const browser = new Browser(t);
  const page = await browser.request('/password-reset');
  assert.equal(page.status, 200);
  const fields = formFields(await page.text(), '/password-reset');
  fields.set('email', email);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (address) headers['x-forwarded-for'] = address;
  return browser.request('/password-reset', { method: 'POST', headers, body: fields.toString() });
}

/** Opens a reset link and submits the new password with the page's own CSRF token. */
async function setPassword(t: TestApp, link: string, password: string, confirm = password) {
  const browser = new Browser(t);
  const path = new URL(link).pathname;
  const page = await browser.request(path);
  assert.equal(page.status, 200, `reset page ${page.status}`);
  const fields = formFields(await page.text(), path);
  fields.set('password', password);
  fields.set('confirm', confirm);
  return browser.postForm(path, fields);
}

const resetMailTo = (smtp: TestSmtpServer, to: string, after = 0) =>
  smtp.waitFor(
    (m) => m.envelopeTo.includes(to) && /Reset your/.test(m.subject) && smtp.messages.indexOf(m) >= after,
  );

describe('password reset from /login', () => {
  let smtp: TestSmtpServer;
  let t: LoggedTestApp;
  let address = 0;
  const nextAddress = () => `203.0.113.${++address}`;

  before(async () => {
    smtp = await startTestSmtpServer();
    t = await createLoggedTestApp({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Lectern <no-reply@lectern.test>',
      TRUST_PROXY: 'true',
    });
    await seedDemoData(t.runtime.db);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  it('the sign-in form links to "Forgot password?"', async () => {
    const html = await (await t.request('/login')).text();
    assert.match(html, /<a href="\/password-reset">Forgot password\?<\/a>/);
  });

  it('known and unknown emails get the same redirect and the same page; only the known one gets mail and a stored link', async () => {
    const known = await requestReset(t, 'student@example.com', nextAddress());
    const unknown = await requestReset(t, 'nobody-here@example.com', nextAddress());
    for (const res of [known, unknown]) {
      assert.equal(res.status, 303);
      assert.equal(locationOf(res), '/password-reset/sent');
      assert.equal(await res.text(), '');
    }
    const sent = await t.request('/password-reset/sent');
    assert.equal(sent.status, 200);
    assert.match(
      await sent.text(),
      /If an account uses that email, a link to choose a new password is on its way/,
    );

    const mail = await resetMailTo(smtp, 'student@example.com');
    assert.equal(mail.subject, 'Reset your Demo Academy password');
    assert.match(mail.from, /^"?Demo Academy"? <no-reply@lectern\.test>$/);
    assert.match(mail.text, /Hello Sam Student,/);
    const link = linkIn(mail, RESET_PREFIX);
    assert.match(link, /^http:\/\/lectern\.test\/password-reset\/[A-Za-z0-9_-]{43}$/);
    assert.ok(mail.html.includes(`<a href="${link}">`), 'the HTML part carries the same link');
    // Stored only as a hash, for one hour.
    const rows = await t.runtime.db.selectFrom('password_resets').selectAll().execute();
    const student = await findUserByEmail(t.runtime.db, 'student@example.com');
    assert.deepEqual(
      rows.map((r) => r.user_id),
      [student!.id],
      'the unknown email stored nothing',
    );
    assert.equal(rows[0].token_hash, sha256(link.split('/').at(-1)!));
    assert.equal(Date.parse(rows[0].expires_at) - Date.parse(rows[0].created_at), 3600_000);
    // The log names the event and the person, never the link.
    const logged = t.logs.filter((l) => l.event === 'password.reset_requested');
    assert.equal(logged.length, 1);
    assert.equal(logged[0].userId, student!.id);
    assert.ok(!JSON.stringify(t.logs).includes(link.split('/').at(-1)!), 'the token is never logged');
  });

  it('the link sets a new password once, signs the person out of every browser and app, and mails a notice', async () => {
    const session = await signedIn(t, 'lecturer@example.com');
    const tokens = await obtainTokens(t, {
      clientId: DEMO_MEMBER_APP_ID,
      scopes: ['openid', 'account:read'],
      resource: TEST_BASE_URL,
      browser: session,
    });
    assert.equal(await userinfoStatus(t, tokens.access_token), 200);
    const before = smtp.messages.length;
    await requestReset(t, 'lecturer@example.com', nextAddress());
    const link = linkIn(await resetMailTo(smtp, 'lecturer@example.com', before), RESET_PREFIX);

    const page = await t.request(new URL(link).pathname);
    assert.equal(page.status, 200);
    assertPageHeaders(page);
    assert.equal(
      page.headers.get('referrer-policy'),
      'no-referrer',
      'the token in the URL never leaks as a Referer',
    );

    const short = await setPassword(t, link, 'short');
    assert.equal(short.status, 400);
    assert.match(await short.text(), /at least 8 characters/);
    const differ = await setPassword(t, link, NEW_PASSWORD, `${NEW_PASSWORD}x`);
    assert.equal(differ.status, 400);
    assert.match(await differ.text(), /The two passwords differ/);

    const done = await setPassword(t, link, NEW_PASSWORD);
    assert.equal(done.status, 303);
    assert.equal(locationOf(done), '/password-reset/done');
    assert.match(await (await t.request('/password-reset/done')).text(), /You were signed out everywhere/);

    assert.equal((await session.request('/account')).status, 302, 'the old browser session ended');
    assert.equal(await userinfoStatus(t, tokens.access_token), 401, 'the app’s tokens were revoked');
    assert.equal(
      (await signIn(new Browser(t), 'lecturer@example.com')).status,
      401,
      'the old password fails',
    );
    assert.equal(
      (await signIn(new Browser(t), 'lecturer@example.com', { password: NEW_PASSWORD })).status,
      303,
    );
    // Single use: the same link again is a clear page, not a second reset.
    const reused = await t.request(new URL(link).pathname);
    assert.equal(reused.status, 410);
    assert.match(await reused.text(), /expired or was already used/);

    const notice = await smtp.waitFor(
      (m) => m.envelopeTo.includes('lecturer@example.com') && /password was changed/.test(m.subject),
    );
    assert.equal(notice.subject, 'Your Demo Academy password was changed');
    assert.match(notice.html, /was just changed/);
    const events = t.logs.filter((l) => l.event === 'password.reset' || l.event === 'sessions.revoked');
    assert.deepEqual(
      events.map((l) => l.event),
      ['password.reset', 'sessions.revoked'],
    );
  });

  it('of two parallel uses of one link exactly one sets the password', async () => {
    const user = await findUserByEmail(t.runtime.db, 'other-student@example.com');
    const token = await createPasswordReset(t.runtime.db, user!.id);
    const path = `/password-reset/${token}`;
    const submits = await Promise.all(
      [1, 2, 3].map(async (i) => {
        const browser = new Browser(t);
        const fields = formFields(await (await browser.request(path)).text(), path);
        fields.set('password', `parallel-password-${i}`);
        fields.set('confirm', `parallel-password-${i}`);
        return () => browser.postForm(path, fields);
      }),
    );
    const statuses = (await Promise.all(submits.map((send) => send()))).map((r) => r.status).sort();
    assert.deepEqual(statuses, [303, 410, 410]);
  });

  it('forged, malformed and expired links get a clear HTML page, never a 5xx', async () => {
    const forged = await t.request(`/password-reset/${'A'.repeat(43)}`);
    assert.equal(forged.status, 404);
    assert.match(forged.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await forged.text(), /This password-reset link is not valid/);
    for (const path of [
      '/password-reset/%00',
      `/password-reset/${'x'.repeat(5000)}`,
      '/password-reset/..%2F..%2Fetc',
    ]) {
      const res = await t.request(path);
      assert.equal(res.status, 404, path);
      assert.match(await res.text(), /not valid/);
    }
    const user = await findUserByEmail(t.runtime.db, 'other-lecturer@example.com');
    // Asked for an hour and a second ago.
    const expired = await t.clock.travel(-(PASSWORD_RESET_SECONDS + 1) * SECOND, () =>
      createPasswordReset(t.runtime.db, user!.id),
    );
    const res = await t.request(`/password-reset/${expired}`);
    assert.equal(res.status, 410);
    // Submitting to a forged link is refused the same way (with a valid CSRF token).
    const browser = new Browser(t);
    const fields = formFields(await (await browser.request('/password-reset')).text(), '/password-reset');
    fields.delete('email');
    fields.set('password', NEW_PASSWORD);
    fields.set('confirm', NEW_PASSWORD);
    const post = await browser.postForm(`/password-reset/${'B'.repeat(43)}`, fields);
    assert.equal(post.status, 404);
    const expiredPost = await browser.postForm(`/password-reset/${expired}`, fields);
    assert.equal(expiredPost.status, 410);
  });

  it('refuses forms without a CSRF token, and bodies that are not forms', async () => {
    const noCsrf = await t.request('/password-reset', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=student%40example.com',
    });
    assert.equal(noCsrf.status, 403);
    assert.match(await noCsrf.text(), /This form has expired/);
    const json = await t.request('/password-reset', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":"student@example.com"}',
    });
    assert.equal(json.status, 415);
    const user = await findUserByEmail(t.runtime.db, 'owner@example.com');
    const token = await createPasswordReset(t.runtime.db, user!.id);
    const forged = await t.request(`/password-reset/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `password=${NEW_PASSWORD}&confirm=${NEW_PASSWORD}`,
    });
    assert.equal(forged.status, 403, 'a cross-site POST cannot set the password');
    assert.equal((await t.request(`/password-reset/${token}`)).status, 200, 'and did not spend the link');
  });

  it('OWASP Forgot Password: throttled per account, known or not, with Retry-After', async () => {
    for (const email of ['owner@example.com', 'ghost@example.com']) {
      for (let i = 0; i < 3; i++) assert.equal((await requestReset(t, email, nextAddress())).status, 303);
      const refused = await requestReset(t, email, nextAddress());
      assert.equal(refused.status, 429, email);
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      assert.match(await refused.text(), /Too many reset requests/);
    }
  });

  it('throttled per address', async () => {
    const from = nextAddress();
    for (let i = 0; i < 20; i++)
      assert.equal((await requestReset(t, `many${i}@example.com`, from)).status, 303);
    assert.equal((await requestReset(t, 'many-more@example.com', from)).status, 429);
  });

  it('a reset lifts the sign-in lock', async () => {
    const email = 'other-owner@example.com';
    for (let i = 0; i < ACCOUNT_FAILURE_LIMIT; i++) {
      assert.equal((await signIn(new Browser(t), email, { password: 'wrong-password' })).status, 401);
    }
    const locked = await signIn(new Browser(t), email);
    assert.equal(locked.status, 429);
    const html = await locked.text();
    assert.match(html, /Too many failed sign-ins\. Try again in 15 minutes\./);
    assert.match(html, /<a href="\/password-reset">reset your password<\/a>/);
    assert.match(html, /ask an owner or admin of your school to unlock your account/);
    assert.doesNotMatch(html, /app you came from|go back to the app/i);

    const user = await findUserByEmail(t.runtime.db, email);
    const token = await createPasswordReset(t.runtime.db, user!.id);
    assert.equal((await setPassword(t, `${RESET_PREFIX}${token}`, NEW_PASSWORD)).status, 303);
    assert.equal((await signIn(new Browser(t), email, { password: NEW_PASSWORD })).status, 303);
  });

  it('housekeeping deletes links a day after they expired, and keeps the others', async () => {
    const user = await findUserByEmail(t.runtime.db, 'owner@example.com');
    const askedAgo = (ms: number) => t.clock.travel(-ms, () => createPasswordReset(t.runtime.db, user!.id));
    const old = await askedAgo(26 * HOUR);
    const recent = await askedAgo(2 * HOUR);
    assert.ok((await purgePasswordResets(t.runtime.db)) >= 1);
    const left = new Set(
      (await t.runtime.db.selectFrom('password_resets').select('token_hash').execute()).map(
        (r) => r.token_hash,
      ),
    );
    assert.ok(!left.has(sha256(old)));
    assert.ok(
      left.has(sha256(recent)),
      'an expired link stays a day, so it is still told apart from a forged one',
    );
  });

  it('names the school only when the person belongs to exactly one', async () => {
    const user = await findUserByEmail(t.runtime.db, 'other-lecturer@example.com');
    const demo = await t.runtime.db
      .selectFrom('schools')
      .select('id')
      .where('name', '=', 'Demo Academy')
      .executeTakeFirstOrThrow();
    await ensureMembership(t.runtime.db, demo.id, user!.id, ['student']);
    const before = smtp.messages.length;
    assert.equal((await requestReset(t, 'other-lecturer@example.com', nextAddress())).status, 303);
    const mail: ReceivedMail = await resetMailTo(smtp, 'other-lecturer@example.com', before);
    assert.equal(mail.subject, 'Reset your Lectern password');
  });
});

describe('password reset without SMTP_URL', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await seedDemoData(t.runtime.db);
  });
  after(() => t.close());

  it('says honestly that no link can be sent, shows no form, and stores nothing', async () => {
    const page = await t.request('/password-reset');
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /cannot send email, so it cannot send you a reset link/);
    assert.match(html, /Ask an owner or admin of your school/);
    assert.doesNotMatch(html, /<form/);
    const post = await t.request('/password-reset', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=student%40example.com',
    });
    assert.equal(post.status, 503);
    assert.equal((await t.runtime.db.selectFrom('password_resets').selectAll().execute()).length, 0);
  });

  it('the lockout page does not offer a reset it cannot send', async () => {
    for (let i = 0; i < ACCOUNT_FAILURE_LIMIT; i++) {
      await signIn(new Browser(t), 'student@example.com', { password: 'wrong-password' });
    }
    const locked = await signIn(new Browser(t), 'student@example.com', { password: DEMO_PASSWORD });
    assert.equal(locked.status, 429);
    const html = await locked.text();
    assert.doesNotMatch(html, /href="\/password-reset"/);
    assert.match(html, /unlock your account/);
  });
});
