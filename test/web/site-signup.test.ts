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
import { findMembership } from '../../src/domain/school/memberships.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { api } from '../admin/api.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { Browser, formFields, signIn } from '../support/oauth-flow.ts';
import { linkIn, type ReceivedMail, startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { createWorld, type World } from '../support/world.ts';
import { assertPageHeaders, locationOf, signedIn } from './pages-support.ts';

const CONFIRM = `${TEST_BASE_URL}/schools/demo/signup/confirm?`;

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

  /** Signs up, then opens the mailed link and presses its button: signed in, back at `back`. */
  async function signUpAndConfirm(
    browser: Browser,
    fields: Record<string, string>,
    back = SQL,
  ): Promise<void> {
    assert.equal((await signUp(browser, fields, back)).status, 200);
    const mail = await mailTo(fields.email.toLowerCase(), 'Confirm your email for Demo Academy');
    const opened = await browser.request(linkIn(mail, CONFIRM), { headers: { accept: 'text/html' } });
    const pressed = await browser.postForm(
      '/schools/demo/signup/confirm',
      formFields(await opened.text(), '/schools/demo/signup/confirm'),
    );
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
    const user = await findUserByEmail(t.runtime.db, 'nia@example.com');
    assert.ok(user);
    assert.equal(user.name, 'Nia New');
    assert.equal(user.unverified_school_id, w.demo.schoolId, 'trusted at this school only, until confirmed');
    const membership = await findMembership(t.runtime.db, w.demo.schoolId, user.id);
    assert.deepEqual([membership?.roles, membership?.status], [['student'], 'active']);
    // Not signed in by the sign-up itself: the link does that.
    assert.ok((await (await browser.request(SQL)).text()).includes('Sign up to enrol'));
    // The confirmation email, from the school, with a link that works (and a tampered one that does not).
    const mail = await mailTo('nia@example.com', 'Confirm your email for Demo Academy');
    assert.equal(mail.from, '"Demo Academy" <no-reply@lectern.test>');
    const link = linkIn(mail, CONFIRM);
    assert.equal(new URL(link).searchParams.get('return_to'), SQL);
    const tampered = link.replace(/token=(\d+)\./, (_m, exp) => `token=${Number(exp) + 1000}.`);
    const bad = await t.request(tampered, { headers: { accept: 'text/html' } });
    assert.equal(bad.status, 410);
    assert.ok((await bad.text()).includes('This confirmation link is not valid or has expired'));
    // Opening the link (as a mail scanner does) proves nothing: it shows a button that posts.
    const other = new Browser(t);
    const opened = await other.request(link, { headers: { accept: 'text/html' } });
    assert.equal(opened.status, 200);
    const confirmPage = await opened.text();
    assert.ok(confirmPage.includes('<h1>Confirm your email address</h1>'));
    assert.ok(confirmPage.includes('Confirm that <strong>nia@example.com</strong> is your email address'));
    assert.ok(
      confirmPage.includes('<button class="primary" type="submit">Confirm my email address</button>'),
    );
    assert.equal(
      (await findUserByEmail(t.runtime.db, 'nia@example.com'))?.unverified_school_id,
      w.demo.schoolId,
      'a GET changes nothing',
    );
    const fields = formFields(confirmPage, '/schools/demo/signup/confirm');
    const linkParams = new URL(link).searchParams;
    assert.deepEqual(
      [...fields].map(([k]) => k),
      ['csrf_token', 'user', 'token', 'return_to'],
      'the link’s token and this browser’s CSRF token (signing in from a form needs one: login CSRF)',
    );
    assert.equal(fields.get('token'), linkParams.get('token'));
    // Posted from another site (no CSRF token of this browser), or with a tampered token: refused.
    const crossSite = await new Browser(t).postForm('/schools/demo/signup/confirm', fields);
    assert.equal(crossSite.status, 403);
    const forgedFields = new URLSearchParams(fields);
    forgedFields.set('token', new URL(tampered).searchParams.get('token')!);
    assert.equal((await other.postForm('/schools/demo/signup/confirm', forgedFields)).status, 410);
    assert.equal(
      (await findUserByEmail(t.runtime.db, 'nia@example.com'))?.unverified_school_id,
      w.demo.schoolId,
    );
    // The button (in the browser that opened the link) confirms, signs in and goes back to the course.
    const pressed = await other.postForm('/schools/demo/signup/confirm', fields);
    assert.equal(pressed.status, 303);
    assert.equal(locationOf(pressed), SQL);
    assert.equal((await findUserByEmail(t.runtime.db, 'nia@example.com'))?.unverified_school_id, null);
    const page = await (await other.request(SQL)).text();
    assert.ok(page.includes('<a href="/schools/demo/learn">My courses</a>'));
    assert.ok(page.includes('<button class="secondary small" type="submit">Sign out</button>'));
    assert.ok(page.includes('<button class="primary" type="submit">Enrol</button>'));
    assert.ok(!page.includes('Sign up'));
    // Pressed again (the link opened anew, elsewhere), it signs nobody in: it says the address is confirmed.
    const stranger = new Browser(t);
    const strangerPage = await stranger.request(link, { headers: { accept: 'text/html' } });
    const strangerFields = formFields(await strangerPage.text(), '/schools/demo/signup/confirm');
    const replay = await stranger.postForm('/schools/demo/signup/confirm', strangerFields);
    assert.equal(replay.status, 303);
    assert.equal(locationOf(replay), '/schools/demo/signup/confirmed');
    assert.equal(stranger.cookies.size, 1, 'only the CSRF cookie: no session');
    const done = await (await stranger.request('/schools/demo/signup/confirmed')).text();
    assert.ok(done.includes('<h1>Email confirmed</h1>'));
    assert.ok(done.includes('Thank you: your email address is confirmed.'));
  });

  it('an address that has an account gets the same answer, byte for byte; its owner gets a mail instead', async () => {
    const answer = async (email: string) => {
      const res = await signUp(new Browser(t), { name: 'Sam', email, password: 'a-long-password' });
      // Every header but the request's own random id (X-Request-Id) is compared.
      const headers = [...res.headers].filter(([name]) => name !== 'x-request-id');
      return { status: res.status, headers, body: await res.text() };
    };
    // The same address twice: new the first time, taken the second.
    const fresh = await answer('twice@example.com');
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
    // The new address got its confirmation link; the second try at it, the notice.
    await mailTo('brand-new@example.com', 'Confirm your email for Demo Academy');
    await mailTo('twice@example.com', 'Confirm your email for Demo Academy');
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

  it('an account trusted only at another school must confirm its email before enrolling here', async () => {
    const browser = new Browser(t);
    const res = await signUp(
      browser,
      { name: 'Otto', email: 'otto@example.com', password: 'a-long-password' },
      '/schools/other/',
      'other',
    );
    assert.equal(res.status, 200);
    // Never confirmed, but the password works at sign-in.
    assert.equal((await signIn(browser, 'otto@example.com', { password: 'a-long-password' })).status, 303);
    const page = await browser.request(SQL);
    const csrf = formFields(await page.text(), `${SQL}/enroll`).get('csrf_token')!;
    const refused = await browser.postForm(`${SQL}/enroll`, { csrf_token: csrf });
    assert.equal(refused.status, 403);
    assert.ok((await refused.text()).includes('<h1>Confirm your email first</h1>'));
    const userId = (await findUserByEmail(t.runtime.db, 'otto@example.com'))!.id;
    assert.equal(
      await findMembership(t.runtime.db, w.demo.schoolId, userId),
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
    const tokenPage = await browser.request('/schools/demo/signup/confirm?user=x&token=y');
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
