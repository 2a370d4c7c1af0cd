/**
 * Signing up and enrolling at a school's site over HTTP. Sign-up answers the same page whatever
 * the email (docs/security.md; OWASP Authentication Cheat Sheet, "Authentication and Error
 * Messages"): a new address gets an account, a student membership and a mail whose link (opened,
 * then its button pressed: opening proves nothing) confirms the address and signs the person in;
 * an address that has an account gets its owner a mail instead. Without SMTP the site takes no
 * sign-up. A school can close sign-up; hostile input gets the form again with the errors by the
 * fields. Enrolling in a free course goes through the domain's rule and shows in the admin API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { createInvitation } from '../../src/domain/school/invitations.ts';
import { findMembership } from '../../src/domain/school/memberships.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { api } from '../admin/api.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { DAY, SECOND } from '../support/clock.ts';
import { Browser, formFields, signIn } from '../support/oauth-flow.ts';
import { linkIn, type ReceivedMail, startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { createWorld, type World } from '../support/world.ts';
import { assertPageHeaders, locationOf, signedIn } from './pages-support.ts';

const CONFIRM = `${TEST_BASE_URL}/schools/demo/signup/confirm?`;
const NOT_VALID =
  'This confirmation link is not valid. Open the whole link from the email, or sign up again to get a new one.';

/** The link with one character of its sealed token changed: AES-GCM's tag no longer matches. */
function tamper(link: string): string {
  const url = new URL(link);
  const token = url.searchParams.get('token')!;
  const i = Math.floor(token.length / 2);
  url.searchParams.set('token', `${token.slice(0, i)}${token[i] === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`);
  return url.toString();
}

const SQL = `/schools/demo/courses/${DEMO.courses.sql}`;
const TS = `/schools/demo/courses/${DEMO.courses.typescript}`;

describe('sign-up and enrolment at a school site', () => {
  let t: TestApp;
  let w: World;
  let smtp: TestSmtpServer;
  let demoApi: ReturnType<typeof api>;

  before(async () => {
    smtp = await startTestSmtpServer();
    t = await createTestApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Lectern <no-reply@lectern.test>' });
    w = await createWorld(t);
    demoApi = api(t, await w.demo.token());
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  /** Opens the sign-up page (coming back to `back`) and posts the form with these fields. */
  async function signUp(
    browser: Browser,
    fields: Record<string, string>,
    back = SQL,
    school = 'demo',
  ): Promise<Response> {
    const form = await browser.request(`/schools/${school}/signup?return_to=${encodeURIComponent(back)}`);
    assert.equal(form.status, 200);
    const values = formFields(await form.text(), `/schools/${school}/signup`);
    for (const [k, v] of Object.entries(fields)) values.set(k, v);
    return browser.postForm(`/schools/${school}/signup`, values);
  }

  /** The next mail to `email` with this subject (each test uses its own addresses). */
  function mailTo(email: string, subject: string): Promise<ReceivedMail> {
    return smtp.waitFor((m) => m.envelopeTo.includes(email) && m.subject === subject);
  }

  /** This signed-out browser's CSRF token, as the sign-up form carries it. */
  async function signUpCsrf(browser: Browser): Promise<string> {
    const page = await browser.request('/schools/demo/signup');
    return formFields(await page.text(), '/schools/demo/signup').get('csrf_token')!;
  }

  /** Opens a mailed link in `browser`, gives the password and presses the button: its answer. */
  async function press(browser: Browser, link: string, password = 'a-long-password'): Promise<Response> {
    const opened = await browser.request(link, { headers: { accept: 'text/html' } });
    assert.equal(opened.status, 200, `opened ${link}`);
    const fields = formFields(await opened.text(), '/schools/demo/signup/confirm');
    fields.set('password', password);
    return browser.postForm('/schools/demo/signup/confirm', fields);
  }

  /** The page a link pressed for an address that has an account leads to. */
  async function assertAlreadySignedUp(browser: Browser): Promise<void> {
    const res = await browser.request('/schools/demo/signup/confirmed', { headers: { accept: 'text/html' } });
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.ok(html.includes('<h1>Already signed up</h1>'));
    assert.ok(
      html.includes(
        `This address already has an account: <a href="/login?return_to=${encodeURIComponent('/schools/demo/')}">sign in</a>.`,
      ),
    );
  }

  /** Signs up, then opens the mailed link and presses its button: signed in, back at `back`. */
  async function signUpAndConfirm(
    browser: Browser,
    fields: Record<string, string>,
    back = SQL,
  ): Promise<void> {
    assert.equal((await signUp(browser, fields, back)).status, 200);
    const mail = await mailTo(fields.email.toLowerCase(), 'Confirm your email for Demo Academy');
    const pressed = await press(browser, linkIn(mail, CONFIRM), fields.password);
    assert.equal(pressed.status, 303);
    assert.equal(locationOf(pressed), back);
  }

  async function enrolForm(browser: Browser, path: string): Promise<URLSearchParams> {
    const page = await browser.request(path);
    assert.equal(page.status, 200);
    return formFields(await page.text(), `${path}/enroll`);
  }

  it('the sign-up page: name, email, password, and a way to sign in instead', async () => {
    const res = await new Browser(t).request(`/schools/demo/signup?return_to=${encodeURIComponent(SQL)}`);
    assert.equal(res.status, 200);
    assertPageHeaders(res);
    const html = await res.text();
    assert.ok(html.includes('<h1>Sign up at Demo Academy</h1>'));
    assert.ok(
      html.includes(
        '<input id="name" name="name" type="text" autocomplete="name" required maxlength="200" value="">',
      ),
    );
    assert.ok(
      html.includes(
        '<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="">',
      ),
    );
    assert.ok(
      html.includes(
        '<input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" aria-describedby="password-hint">',
      ),
    );
    assert.ok(html.includes(`<input type="hidden" name="return_to" value="${SQL}">`));
    assert.ok(html.includes('<button class="primary" type="submit">Create account</button>'));
    assert.ok(
      html.includes(
        `Already have an account? <a href="/login?return_to=${encodeURIComponent(SQL)}">Sign in</a>`,
      ),
    );
  });

  it('sign up → “Check your email”; the mailed link’s button confirms the address and signs the person in', async () => {
    const browser = new Browser(t);
    const res = await signUp(browser, {
      name: 'Nia New',
      email: 'Nia@Example.com',
      password: 'a-long-password',
    });
    assert.equal(res.status, 200);
    assertPageHeaders(res);
    const answer = await res.text();
    assert.ok(answer.includes('<h1>Check your email</h1>'));
    assert.ok(
      answer.includes(
        'To finish signing up at Demo Academy, open the link we sent to <strong>Nia@Example.com</strong>.',
      ),
    );
    // No account and no membership until the mailed link is pressed: a password chosen for an
    // address nobody proved opens nothing (pre-hijacked accounts, Sudhodanan & Paverd 2022).
    assert.equal(await findUserByEmail(t.runtime.db, 'nia@example.com'), undefined);
    // Not signed in by the sign-up itself: the link does that.
    assert.ok((await (await browser.request(SQL)).text()).includes('Sign up to enrol'));
    // The confirmation email, from the school, with a link that works (and a tampered one that does not).
    const mail = await mailTo('nia@example.com', 'Confirm your email for Demo Academy');
    assert.equal(mail.from, '"Demo Academy" <no-reply@lectern.test>');
    assert.ok(mail.text.includes('Hello Nia New,'));
    const link = linkIn(mail, CONFIRM);
    assert.equal(new URL(link).searchParams.get('return_to'), SQL);
    assert.ok(link.length < 700, `a link a mail client keeps whole: ${link.length} characters`);
    const tampered = tamper(link);
    const bad = await t.request(tampered, { headers: { accept: 'text/html' } });
    assert.equal(bad.status, 410);
    assert.ok((await bad.text()).includes(NOT_VALID));
    // Opening the link (as a mail scanner does) proves nothing: it shows a button that posts.
    const other = new Browser(t);
    const opened = await other.request(link, { headers: { accept: 'text/html' } });
    assert.equal(opened.status, 200);
    const confirmPage = await opened.text();
    assert.ok(confirmPage.includes('<h1>Confirm your email address</h1>'));
    assert.ok(confirmPage.includes('Confirm that <strong>nia@example.com</strong> is your email address'));
    assert.ok(
      confirmPage.includes(
        '<input id="password" name="password" type="password" autocomplete="current-password" required aria-describedby="password-hint">',
      ),
    );
    assert.ok(
      confirmPage.includes('<button class="primary" type="submit">Confirm my email address</button>'),
    );
    assert.equal(await findUserByEmail(t.runtime.db, 'nia@example.com'), undefined, 'a GET changes nothing');
    const fields = formFields(confirmPage, '/schools/demo/signup/confirm');
    const linkParams = new URL(link).searchParams;
    assert.deepEqual(
      [...fields].map(([k]) => k),
      ['csrf_token', 'token', 'return_to'],
      'the link’s token and this browser’s CSRF token (login CSRF); the password is typed',
    );
    // Without the password chosen at sign-up, the button makes nothing: the form again, with why.
    const noPassword = await other.postForm('/schools/demo/signup/confirm', fields);
    assert.equal(noPassword.status, 422);
    const again = await noPassword.text();
    assert.ok(
      again.includes(
        '<p class="field-error" id="password-error">This is not the password chosen when signing up. If you did not sign up, ignore the email: no account is made.</p>',
      ),
    );
    assert.ok(again.includes('aria-describedby="password-hint password-error" aria-invalid="true"'));
    assert.equal(await findUserByEmail(t.runtime.db, 'nia@example.com'), undefined);
    fields.set('password', 'a-long-password');
    assert.equal(fields.get('token'), linkParams.get('token'));
    // Posted from another site (no CSRF token of this browser), or with a tampered token: refused.
    const crossSite = await new Browser(t).postForm('/schools/demo/signup/confirm', fields);
    assert.equal(crossSite.status, 403);
    const forgedFields = new URLSearchParams(fields);
    forgedFields.set('token', new URL(tampered).searchParams.get('token')!);
    assert.equal((await other.postForm('/schools/demo/signup/confirm', forgedFields)).status, 410);
    assert.equal(await findUserByEmail(t.runtime.db, 'nia@example.com'), undefined);
    // The button (in the browser that opened the link) makes the account, signs in and goes back.
    const pressed = await other.postForm('/schools/demo/signup/confirm', fields);
    assert.equal(pressed.status, 303);
    assert.equal(locationOf(pressed), SQL);
    const user = await findUserByEmail(t.runtime.db, 'nia@example.com');
    assert.ok(user);
    assert.deepEqual([user.name, user.unverified_school_id], ['Nia New', null], 'the email is proven');
    const membership = await findMembership(t.runtime.db, w.demo.schoolId, user.id);
    assert.deepEqual([membership?.roles, membership?.status], [['student'], 'active']);
    const page = await (await other.request(SQL)).text();
    assert.ok(page.includes('<a href="/schools/demo/learn">My courses</a>'));
    assert.ok(page.includes('<button class="secondary small" type="submit">Sign out</button>'));
    assert.ok(page.includes('<button class="primary" type="submit">Enrol</button>'));
    assert.ok(!page.includes('Sign up'));
    // Pressed again (the link opened anew, elsewhere), it signs nobody in and changes nothing.
    const stranger = new Browser(t);
    const reopened = await stranger.request(link, { headers: { accept: 'text/html' } });
    assert.equal(reopened.status, 303);
    assert.equal(locationOf(reopened), '/schools/demo/signup/confirmed');
    const replay = await stranger.postForm('/schools/demo/signup/confirm', {
      csrf_token: await signUpCsrf(stranger),
      token: linkParams.get('token')!,
      return_to: SQL,
    });
    assert.equal(replay.status, 303);
    assert.equal(locationOf(replay), '/schools/demo/signup/confirmed');
    assert.equal(stranger.cookies.size, 1, 'only the CSRF cookie: no session');
    await assertAlreadySignedUp(stranger);
    assert.deepEqual(await findUserByEmail(t.runtime.db, 'nia@example.com'), user);
  });

  it('an address that has an account gets the same answer, byte for byte; its owner gets a mail instead', async () => {
    const answer = async (email: string) => {
      const res = await signUp(new Browser(t), { name: 'Sam', email, password: 'a-long-password' });
      // Every header but the request's own random id (X-Request-Id) is compared.
      const headers = [...res.headers].filter(([name]) => name !== 'x-request-id');
      return { status: res.status, headers, body: await res.text() };
    };
    // The same address twice: new the first time, taken the second (its link pressed between).
    const fresh = await answer('twice@example.com');
    const made = await press(
      new Browser(t),
      linkIn(await mailTo('twice@example.com', 'Confirm your email for Demo Academy'), CONFIRM),
    );
    assert.equal(made.status, 303);
    const taken = await answer('twice@example.com');
    assert.equal(fresh.status, 200);
    assert.deepEqual(taken, fresh);
    // An account made long ago (the demo student) answers the same as a new address.
    const studentBefore = await findUserByEmail(t.runtime.db, 'student@example.com');
    const existing = await answer('student@example.com');
    const brandNew = await answer('brand-new@example.com');
    assert.equal(existing.status, 200);
    assert.deepEqual(existing.headers, brandNew.headers);
    assert.equal(
      existing.body.replace('student@example.com', 'X'),
      brandNew.body.replace('brand-new@example.com', 'X'),
    );
    assert.ok(existing.body.includes('<h1>Check your email</h1>'));
    // Nothing changed about the existing account; its owner is told, with the ways on.
    const student = await findUserByEmail(t.runtime.db, 'student@example.com');
    assert.deepEqual(student, studentBefore);
    const notice = await mailTo(
      'student@example.com',
      'Someone tried to sign up at Demo Academy with your email',
    );
    assert.equal(notice.from, '"Demo Academy" <no-reply@lectern.test>');
    assert.ok(notice.text.includes('which already has an account. If it was you, sign in with it:'));
    assert.equal(
      linkIn(notice, `${TEST_BASE_URL}/login?`),
      `${TEST_BASE_URL}/login?return_to=%2Fschools%2Fdemo%2F`,
    );
    assert.ok(
      notice.text.includes(`Forgot your password? Reset it here:\n${TEST_BASE_URL}/password-reset\n`),
    );
    assert.ok(!notice.text.includes('signup/confirm'), 'no link that would sign anyone in');
    // The new address got its confirmation link; the try after its account was made, the notice.
    await mailTo('brand-new@example.com', 'Confirm your email for Demo Academy');
    await mailTo('twice@example.com', 'Someone tried to sign up at Demo Academy with your email');
  });

  it('enrol in a free course → the learning area; the enrollment shows through the admin API', async () => {
    const browser = new Browser(t);
    await signUpAndConfirm(browser, {
      name: 'Eve Enrol',
      email: 'eve@example.com',
      password: 'a-long-password',
    });
    const userId = (await findUserByEmail(t.runtime.db, 'eve@example.com'))!.id;
    const res = await browser.postForm(`${SQL}/enroll`, await enrolForm(browser, SQL));
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), '/schools/demo/learn');
    const listed = await demoApi('GET', `/api/v1/enrollments?user_id=${userId}`);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.data.map((e: { course_id: string; expires_at: string | null }) => [
        e.course_id,
        e.expires_at,
      ]),
      [[w.demo.courseIds.sql, null]],
    );
    // Enrolled: the course page says Continue, into the learning area; a second Enrol changes nothing.
    const page = await (await browser.request(SQL)).text();
    assert.ok(
      page.includes(`<a class="button" href="/schools/demo/learn/courses/${DEMO.courses.sql}">Continue</a>`),
    );
    const csrf = formFields(page).get('csrf_token')!;
    const again = await browser.postForm(`${SQL}/enroll`, { csrf_token: csrf });
    assert.equal(again.status, 303);
    assert.equal((await demoApi('GET', `/api/v1/enrollments?user_id=${userId}`)).body.data.length, 1);
    // A paid course is never enrolled from the site, whatever is posted.
    const paid = await browser.postForm(`${TS}/enroll`, { csrf_token: csrf });
    assert.equal(paid.status, 409);
    assert.ok(
      (await paid.text()).includes('This course is sold by Demo Academy: buy it on the course page.'),
    );
    // Without the CSRF token nothing happens; a draft is a 404.
    const forged = await browser.postForm(`/schools/demo/courses/${DEMO.courses.accessibility}/enroll`, {});
    assert.equal(forged.status, 403);
    const draft = await browser.postForm(`/schools/demo/courses/${DEMO.courses.draft}/enroll`, {
      csrf_token: csrf,
    });
    assert.equal(draft.status, 404);
    assert.equal((await demoApi('GET', `/api/v1/enrollments?user_id=${userId}`)).body.data.length, 1);
  });

  it('enrolling signed-out: refused without this browser’s form token; with it, sign-up first, coming back', async () => {
    const browser = new Browser(t);
    const refused = await browser.postForm(`${SQL}/enroll`, {});
    assert.equal(refused.status, 403);
    assert.ok((await refused.text()).includes(`<a href="${SQL}">Back to the page</a>`));
    // A signed-out browser's own token (its session ended after the page was shown): sign up first.
    const signup = await browser.request('/schools/demo/signup');
    const csrf = formFields(await signup.text(), '/schools/demo/signup').get('csrf_token')!;
    const res = await browser.postForm(`${SQL}/enroll`, { csrf_token: csrf });
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `/schools/demo/signup?return_to=${encodeURIComponent(SQL)}`);
  });

  it('an existing account signs in from the site and comes back to the course', async () => {
    const browser = await signedIn(t, 'student@example.com');
    const form = await browser.request(`/login?return_to=${encodeURIComponent(SQL)}`);
    assert.equal(form.status, 303, 'already signed in: straight back');
    assert.equal(locationOf(form), SQL);
    const page = await (await browser.request(SQL)).text();
    assert.ok(page.includes('Continue</a>'), 'the demo student is enrolled in the SQL course');
    const signup = await browser.request(`/schools/demo/signup?return_to=${encodeURIComponent(SQL)}`);
    assert.equal(signup.status, 303);
    assert.equal(locationOf(signup), SQL);
  });

  it('a password chosen at sign-up opens nothing before the link is pressed: sign-in cannot tell a new address from a taken one', async () => {
    // OWASP Authentication Cheat Sheet, "Authentication and Error Messages": the answer must
    // not say whether the account exists. Before, a new address signed in (303) where a taken
    // one answered 401.
    const answers = [];
    for (const email of ['otto@example.com', 'student@example.com']) {
      assert.equal(
        (await signUp(new Browser(t), { name: 'Otto', email, password: 'otto-chose-this' })).status,
        200,
      );
      const res = await signIn(new Browser(t), email, { password: 'otto-chose-this' });
      const html = await res.text();
      assert.ok(html.includes('Email or password is incorrect.'), email);
      answers.push(res.status);
    }
    assert.deepEqual(answers, [401, 401]);
    assert.equal(await findUserByEmail(t.runtime.db, 'otto@example.com'), undefined);
  });

  it('pre-account takeover: a sign-up made for someone else’s address gives its maker no account, session or password', async () => {
    // "Pre-hijacked accounts" (Sudhodanan & Paverd, 2022): the attacker signs up the victim's
    // address with a password of their own, before the victim does.
    const attacker = new Browser(t);
    const victimEmail = 'victim@example.org';
    const subject = 'Confirm your email for Demo Academy';
    const sent = () =>
      smtp.messages.filter((m) => m.envelopeTo.includes(victimEmail) && m.subject === subject);
    await signUp(attacker, { name: 'Vic Tim', email: victimEmail, password: 'attacker-pw-1' });
    assert.equal((await signIn(attacker, victimEmail, { password: 'attacker-pw-1' })).status, 401);
    const attackerLink = linkIn(await mailTo(victimEmail, subject), CONFIRM);
    // The mailbox's owner presses that link (the reviewer's case): without the attacker's password
    // it makes no account, so none can carry the attacker's password.
    const misled = await press(new Browser(t), attackerLink, 'victims-own-pw');
    assert.equal(misled.status, 422);
    assert.equal(await findUserByEmail(t.runtime.db, victimEmail), undefined);
    // The victim signs up too, before confirming: a fresh link comes.
    const victim = new Browser(t);
    await signUp(victim, { name: 'Victoria', email: victimEmail, password: 'victims-own-pw' });
    await smtp.waitFor(() => sent().length === 2);
    const victimLink = linkIn(sent()[1]!, CONFIRM);
    assert.notEqual(victimLink, attackerLink);
    assert.equal(await findUserByEmail(t.runtime.db, victimEmail), undefined);
    // The victim presses the newer link: the account is theirs, with their password.
    const pressed = await press(victim, victimLink, 'victims-own-pw');
    assert.equal(pressed.status, 303);
    assert.equal(locationOf(pressed), SQL);
    const account = await findUserByEmail(t.runtime.db, victimEmail);
    assert.equal(account?.name, 'Victoria');
    // The older link never overrides the account the newer one made, and signs nobody in.
    const late = new Browser(t);
    const replay = await late.postForm('/schools/demo/signup/confirm', {
      csrf_token: await signUpCsrf(late),
      token: new URL(attackerLink).searchParams.get('token')!,
      return_to: SQL,
    });
    assert.equal(replay.status, 303);
    assert.equal(locationOf(replay), '/schools/demo/signup/confirmed');
    assert.equal(late.cookies.size, 1, 'only the CSRF cookie: no session');
    await assertAlreadySignedUp(late);
    assert.deepEqual(await findUserByEmail(t.runtime.db, victimEmail), account);
    assert.equal((await signIn(new Browser(t), victimEmail, { password: 'attacker-pw-1' })).status, 401);
    assert.equal((await signIn(new Browser(t), victimEmail, { password: 'victims-own-pw' })).status, 303);
    const attackerAccount = await attacker.request('/account', { headers: { accept: 'text/html' } });
    assert.equal(attackerAccount.status, 302, 'the attacker has no session');
  });

  it('a link works only at the school it was made for, and only for seven days', async () => {
    await signUp(new Browser(t), { name: 'Ola', email: 'ola@example.com', password: 'a-long-password' });
    const link = linkIn(await mailTo('ola@example.com', 'Confirm your email for Demo Academy'), CONFIRM);
    // The same link at Other School's address: the same "not valid" page, opened or posted.
    const elsewhere = link.replace('/schools/demo/', '/schools/other/');
    const browser = new Browser(t);
    const opened = await browser.request(elsewhere, { headers: { accept: 'text/html' } });
    assert.equal(opened.status, 410);
    assert.ok((await opened.text()).includes(NOT_VALID));
    const csrf = formFields(await (await browser.request('/schools/other/signup')).text()).get('csrf_token')!;
    const posted = await browser.postForm('/schools/other/signup/confirm', {
      csrf_token: csrf,
      token: new URL(link).searchParams.get('token')!,
    });
    assert.equal(posted.status, 410);
    assert.ok((await posted.text()).includes(NOT_VALID));
    assert.equal(browser.cookies.size, 1, 'no session');
    assert.equal(await findUserByEmail(t.runtime.db, 'ola@example.com'), undefined);
    // Seven days and a second later the link says it expired, opened or posted.
    await t.clock.travel(7 * DAY + SECOND, async () => {
      const expired = await browser.request(link, { headers: { accept: 'text/html' } });
      assert.equal(expired.status, 410);
      const html = await expired.text();
      assert.ok(html.includes('<h1>Link expired</h1>'));
      assert.ok(
        html.includes(
          'This confirmation link has expired (links work for seven days). Sign up again to get a new one.',
        ),
      );
      assert.ok(html.includes('<a href="/schools/demo/signup">Sign up again</a>'));
      const late = await browser.postForm('/schools/demo/signup/confirm', {
        csrf_token: csrf,
        token: new URL(link).searchParams.get('token')!,
      });
      assert.equal(late.status, 410);
    });
    assert.equal(await findUserByEmail(t.runtime.db, 'ola@example.com'), undefined);
    // At its own school, in time, it works.
    assert.equal((await press(browser, link)).status, 303);
    const made = await findUserByEmail(t.runtime.db, 'ola@example.com');
    assert.ok(made);
    assert.deepEqual((await findMembership(t.runtime.db, w.demo.schoolId, made.id))?.roles, ['student']);
  });

  it('an account made from another school’s invitation link signs in as before, and confirms its email before enrolling here', async () => {
    const handed = await createInvitation(t.runtime.db, w.other.schoolId, {
      email: 'otto-invited@example.com',
      roles: ['student'],
      invitedByUserId: w.userId('other-owner@example.com'),
      emailed: false,
    });
    const path = `/invitations/${handed.token}`;
    const joining = new Browser(t);
    const fields = formFields(await (await joining.request(path)).text(), path);
    fields.set('name', 'Otto');
    fields.set('password', 'a-long-password');
    assert.equal((await joining.postForm(path, fields)).status, 303);
    const made = await findUserByEmail(t.runtime.db, 'otto-invited@example.com');
    assert.equal(made?.unverified_school_id, w.other.schoolId);
    const browser = new Browser(t);
    assert.equal(
      (await signIn(browser, 'otto-invited@example.com', { password: 'a-long-password' })).status,
      303,
    );
    const page = await browser.request(SQL);
    const csrf = formFields(await page.text(), `${SQL}/enroll`).get('csrf_token')!;
    const refused = await browser.postForm(`${SQL}/enroll`, { csrf_token: csrf });
    assert.equal(refused.status, 403);
    assert.ok((await refused.text()).includes('<h1>Confirm your email first</h1>'));
    assert.equal(
      await findMembership(t.runtime.db, w.demo.schoolId, made!.id),
      undefined,
      'no membership here',
    );
  });

  it('hostile input gets the form again with errors by the fields, never a 500', async () => {
    const cases: Array<[Record<string, string>, string[]]> = [
      [{ name: 'x'.repeat(5000), email: 'not-an-email', password: 'short' }, ['name', 'email', 'password']],
      [{ name: '', email: 'a@example.com', password: 'a-long-password' }, ['name']],
      [{ name: 'Nul\u0000', email: 'nul\u0000@example.com', password: 'a-long-password' }, ['name', 'email']],
      [{ name: 'Long', email: 'long@example.com', password: 'p'.repeat(5000) }, ['password']],
      [{ name: '<script>', email: `${'a'.repeat(300)}@example.com`, password: 'a-long-password' }, ['email']],
    ];
    for (const [fields, wrong] of cases) {
      const res = await signUp(new Browser(t), fields);
      assert.equal(res.status, 422, JSON.stringify(wrong));
      const html = await res.text();
      for (const f of ['name', 'email', 'password']) {
        assert.equal(html.includes(`id="${f}-error"`), wrong.includes(f), `${f} of ${JSON.stringify(wrong)}`);
      }
      assert.ok(!html.includes('<script>'));
    }
    // No CSRF token, a form that is not a web form, a return_to elsewhere.
    const noCsrf = await new Browser(t).postForm('/schools/demo/signup', {
      name: 'A',
      email: 'a@example.com',
      password: 'a-long-password',
    });
    assert.equal(noCsrf.status, 403);
    assert.ok(
      (await noCsrf.text()).includes(
        'This form has expired or did not come from this site. Go back, reload the page and try again.',
      ),
    );
    assert.equal(await findUserByEmail(t.runtime.db, 'a@example.com'), undefined);
    const json = await t.request('/schools/demo/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(json.status, 415);
    const away = await signUp(
      new Browser(t),
      { name: 'Away', email: 'away@example.com', password: 'a-long-password' },
      'https://evil.example/',
    );
    assert.equal(away.status, 200);
    assert.ok(
      (await away.text()).includes(
        `<a href="/login?return_to=${encodeURIComponent('/schools/demo/')}">Sign in</a> instead`,
      ),
    );
    const awayMail = await mailTo('away@example.com', 'Confirm your email for Demo Academy');
    assert.equal(new URL(linkIn(awayMail, CONFIRM)).searchParams.get('return_to'), '/schools/demo/');
  });

  it('a school that closed sign-up refuses it, and its header offers only Sign in', async () => {
    const closed = await demoApi('PATCH', '/api/v1/school', { signup_open: false });
    assert.equal(closed.status, 200);
    assert.equal(closed.body.signup_open, false);
    try {
      const browser = new Browser(t);
      const page = await browser.request('/schools/demo/signup');
      assert.equal(page.status, 403);
      const html = await page.text();
      assert.ok(html.includes('<h1>Sign-up is closed</h1>'));
      assert.ok(html.includes('Demo Academy is not taking new sign-ups on its site at the moment.'));
      assert.ok(!html.includes('>Sign up</a>'));
      const course = await (await browser.request(SQL)).text();
      assert.ok(
        course.includes(
          `<a class="button" href="/login?return_to=${encodeURIComponent(SQL)}">Sign in to enrol</a>`,
        ),
      );
      // A form shown before closing is refused too.
      const csrfPage = await browser.request('/schools/other/signup');
      const fields = formFields(await csrfPage.text(), '/schools/other/signup');
      fields.set('name', 'Late');
      fields.set('email', 'late@example.com');
      fields.set('password', 'a-long-password');
      const post = await browser.postForm('/schools/demo/signup', fields);
      assert.equal(post.status, 403);
      assert.equal(await findUserByEmail(t.runtime.db, 'late@example.com'), undefined);
    } finally {
      await demoApi('PATCH', '/api/v1/school', { signup_open: true });
    }
  });
});

describe('sign-up at a school site on a deployment without SMTP', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
    await createWorld(t);
  });
  after(() => t.close());

  it('is not offered, and a posted form makes no account, whatever the email (docs/decisions.md)', async () => {
    const browser = new Browser(t);
    const home = await (await browser.request('/schools/demo/')).text();
    assert.ok(!home.includes('>Sign up</a>'));
    const course = await (await browser.request(SQL)).text();
    assert.ok(
      course.includes(
        `<a class="button" href="/login?return_to=${encodeURIComponent(SQL)}">Sign in to enrol</a>`,
      ),
    );
    assert.ok(!course.includes('Sign up to enrol'));
    const page = await browser.request('/schools/demo/signup');
    assert.equal(page.status, 403);
    const text = await page.text();
    assert.ok(text.includes('<h1>Sign-up is not available</h1>'));
    assert.ok(
      text.includes(
        'Signing up needs an email to confirm your address, and this site cannot send email. If you already have an account, sign in. To join, ask Demo Academy for an invitation.',
      ),
    );
    // The form of another page's token, posted anyway: the same refusal for a new and a taken address.
    const csrf = formFields(await (await browser.request('/schools/demo/courses')).text()).get('csrf_token');
    assert.equal(csrf, null, 'a signed-out page carries no token');
    const tokenPage = await browser.request('/schools/demo/signup/confirm?token=y');
    assert.equal(tokenPage.status, 410);
    const answers = [];
    for (const email of ['nobody-yet@example.com', 'student@example.com']) {
      const login = formFields(await (await browser.request('/login')).text());
      const res = await browser.postForm('/schools/demo/signup', {
        csrf_token: login.get('csrf_token') ?? '',
        name: 'N',
        email,
        password: 'a-long-password',
      });
      answers.push({ status: res.status, body: await res.text() });
    }
    assert.equal(answers[0].status, 403);
    assert.deepEqual(answers[1], answers[0]);
    assert.equal(await findUserByEmail(t.runtime.db, 'nobody-yet@example.com'), undefined);
  });
});
