/**
 * Signing up and enrolling at a school's site over HTTP: sign-up makes an account and a student
 * membership, signs the person in and returns them to the page they came from; with SMTP the
 * email is confirmed through a link and the button of the page it opens (opening it proves
 * nothing); a school can close sign-up; an email that has an account is told to sign in; hostile
 * input gets the form again with the errors by the fields. Enrolling in a free course goes
 * through the same domain rule as the admin API, and shows there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { findMembership } from '../../src/domain/school/memberships.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { api } from '../admin/api.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { Browser, formFields } from '../support/oauth-flow.ts';
import { linkIn, startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { createWorld, type World } from '../support/world.ts';
import { assertPageHeaders, locationOf, signedIn } from './pages-support.ts';

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

  it('sign up → a student of the school, signed in, back on the page; the emailed link confirms the email', async () => {
    const browser = new Browser(t);
    const res = await signUp(browser, {
      name: 'Nia New',
      email: 'Nia@Example.com',
      password: 'a-long-password',
    });
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), SQL);
    const user = await findUserByEmail(t.runtime.db, 'nia@example.com');
    assert.ok(user);
    assert.equal(user.name, 'Nia New');
    assert.equal(user.unverified_school_id, w.demo.schoolId, 'trusted at this school only, until confirmed');
    const membership = await findMembership(t.runtime.db, w.demo.schoolId, user.id);
    assert.deepEqual([membership?.roles, membership?.status], [['student'], 'active']);
    // Signed in: the header has My courses and Sign out, the course offers Enrol.
    const page = await (await browser.request(SQL)).text();
    assert.ok(page.includes('<a href="/schools/demo/learn">My courses</a>'));
    assert.ok(page.includes('<button class="secondary small" type="submit">Sign out</button>'));
    assert.ok(page.includes('<button class="primary" type="submit">Enrol</button>'));
    assert.ok(!page.includes('Sign up'));
    // The confirmation email, from the school, with a link that works (and a tampered one that does not).
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes('nia@example.com'));
    assert.equal(mail.subject, 'Confirm your email for Demo Academy');
    assert.equal(mail.from, '"Demo Academy" <no-reply@lectern.test>');
    const link = linkIn(mail, `${TEST_BASE_URL}/schools/demo/signup/confirm?`);
    const tampered = link.replace(/token=(\d+)\./, (_m, exp) => `token=${Number(exp) + 1000}.`);
    const bad = await t.request(tampered, { headers: { accept: 'text/html' } });
    assert.equal(bad.status, 410);
    assert.ok((await bad.text()).includes('This confirmation link is not valid or has expired'));
    // Opening the link (as a mail scanner does) proves nothing: it shows a button that posts.
    const stranger = new Browser(t);
    const opened = await stranger.request(link, { headers: { accept: 'text/html' } });
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
      [...fields],
      [
        ['user', linkParams.get('user')],
        ['token', linkParams.get('token')],
      ],
      'the link’s token, and no session CSRF token (the person may not be signed in)',
    );
    // A tampered token posted is refused too; the button (signed out, another browser) confirms.
    const forged = await stranger.postForm('/schools/demo/signup/confirm', {
      user: linkParams.get('user')!,
      token: new URL(tampered).searchParams.get('token')!,
    });
    assert.equal(forged.status, 410);
    assert.equal(
      (await findUserByEmail(t.runtime.db, 'nia@example.com'))?.unverified_school_id,
      w.demo.schoolId,
    );
    const pressed = await stranger.postForm('/schools/demo/signup/confirm', fields);
    assert.equal(pressed.status, 303);
    assert.equal(locationOf(pressed), '/schools/demo/signup/confirmed');
    assert.equal((await findUserByEmail(t.runtime.db, 'nia@example.com'))?.unverified_school_id, null);
    const done = await stranger.request(locationOf(pressed));
    assert.equal(done.status, 200);
    const donePage = await done.text();
    assert.ok(donePage.includes('<h1>Email confirmed</h1>'));
    assert.ok(donePage.includes('Thank you: your email address is confirmed.'));
    // Pressing it again changes nothing and says the same.
    const again = await stranger.postForm('/schools/demo/signup/confirm', fields);
    assert.equal(again.status, 303);
  });

  it('enrol in a free course → the learning area; the enrollment shows through the admin API', async () => {
    const browser = new Browser(t);
    assert.equal(
      (await signUp(browser, { name: 'Eve Enrol', email: 'eve@example.com', password: 'a-long-password' }))
        .status,
      303,
    );
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

  it('enrolling signed-out goes to sign-up first, coming back to the course', async () => {
    const res = await new Browser(t).postForm(`${SQL}/enroll`, {});
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
    assert.equal(res.status, 303);
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

  it('an email that has an account is told to sign in, by the email field', async () => {
    const res = await signUp(new Browser(t), {
      name: 'Sam',
      email: 'student@example.com',
      password: 'a-long-password',
    });
    assert.equal(res.status, 409);
    const html = await res.text();
    assert.ok(html.includes('aria-invalid="true"'));
    assert.ok(
      html.includes(
        `<p class="field-error" id="email-error">This email already has an account. <a href="/login?return_to=${encodeURIComponent(SQL)}">Sign in</a> with it instead`,
      ),
    );
    assert.ok(html.includes('value="student@example.com"'), 'the form keeps what was typed');
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
    assert.ok((await noCsrf.text()).includes('This form has expired. Please fill it in again.'));
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
    assert.equal(away.status, 303);
    assert.equal(locationOf(away), '/schools/demo/');
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
