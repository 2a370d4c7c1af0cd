import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO_PASSWORD, seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { TEST_BASE_URL } from '../support/app.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';
import { Browser, formFields, signIn } from '../support/oauth-flow.ts';
import { linkIn, startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { assertPageHeaders, locationOf, signedIn, submit } from './pages-support.ts';

const NEW_PASSWORD = 'a-new-password-from-the-operator';

/** The path of the member's "Send password reset link" on the members page, or undefined. */
function resetPathOf(membersPage: string, email: string): string | undefined {
  const escaped = email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`href="([^"]+/password-reset)" aria-label="Send password reset link to ${escaped}"`).exec(
    membersPage,
  )?.[1];
}

/** Opens a reset link and sets the new password through its own page and form. */
async function useResetLink(t: LoggedTestApp, link: string, password: string): Promise<Response> {
  const browser = new Browser(t);
  const path = new URL(link).pathname;
  const page = await browser.request(path);
  assert.equal(page.status, 200, `reset page ${page.status}`);
  const fields = formFields(await page.text(), path);
  fields.set('password', password);
  fields.set('confirm', password);
  return browser.postForm(path, fields);
}

/** The confirmation page's own form, submitted as a browser would. */
async function confirmReset(operator: Browser, path: string): Promise<Response> {
  const page = await operator.request(path);
  assert.equal(page.status, 200, `confirmation page ${page.status}`);
  return operator.postForm(path, formFields(await page.text(), path));
}

/** An invitation made on the members page (no SMTP: its link shown once), accepted by a new person. */
async function inviteNewPerson(
  t: LoggedTestApp,
  owner: Browser,
  schoolId: string,
  email: string,
  role: string,
) {
  const members = `/admin/${schoolId}/members`;
  const sent = await submit(owner, members, `/admin/${schoolId}/invitations`, { email, role });
  assert.equal(sent.status, 303);
  const page = await (await owner.request(locationOf(sent))).text();
  const link = /id="invitation-link">([^<]+)</.exec(page)![1];
  const path = new URL(link).pathname;
  const visitor = new Browser(t);
  const fields = formFields(await (await visitor.request(path)).text(), path);
  fields.set('name', 'New Person');
  fields.set('password', DEMO_PASSWORD);
  assert.equal((await visitor.postForm(path, fields)).status, 303);
}

describe('an operator sends a member a password reset link (no SMTP: shown once)', () => {
  let t: LoggedTestApp;
  let demo: string;
  let other: string;
  let owner: Browser;

  before(async () => {
    t = await createLoggedTestApp();
    await seedDemoData(t.runtime.db);
    demo = (await findSchoolBySubdomain(t.runtime.db, 'demo'))!.id;
    other = (await findSchoolBySubdomain(t.runtime.db, 'other'))!.id;
    owner = await signedIn(t, 'owner@example.com');
  });
  after(() => t.close());

  it('members page → confirmation → link shown once → the link sets a new password and the member signs in', async () => {
    const members = await (await owner.request(`/admin/${demo}/members`)).text();
    const path = resetPathOf(members, 'student@example.com');
    assert.ok(path, 'the member’s row offers "Send password reset link"');
    assert.match(members, />Send password reset link<\/a>/);

    const confirmation = await owner.request(path);
    assert.equal(confirmation.status, 200);
    assertPageHeaders(confirmation);
    const question = await confirmation.text();
    assert.match(question, /<h1>Send a password reset link to [^<]+\?<\/h1>/);
    assert.match(question, /shown to you once/);
    assert.match(question, /<button class="primary" type="submit">Send password reset link<\/button>/);
    assert.match(question, new RegExp(`<a href="/admin/${demo}/members">Cancel</a>`));
    assert.ok(formFields(question, path).get('csrf_token'), 'the form carries the CSRF token');

    const forged = await owner.postForm(path, { csrf_token: 'nope' });
    assert.equal(forged.status, 403);

    const sent = await owner.postForm(path, formFields(question, path));
    assert.equal(sent.status, 303);
    assert.equal(locationOf(sent), `/admin/${demo}/members?done=reset`);
    const shownPage = await (await owner.request(locationOf(sent))).text();
    const link = /id="password-reset-link">([^<]+)</.exec(shownPage)?.[1];
    assert.ok(link?.startsWith(`${TEST_BASE_URL}/password-reset/`), 'the link is shown');
    assert.match(shownPage, /student@example\.com/);
    const again = await (await owner.request(locationOf(sent))).text();
    assert.doesNotMatch(again, /password-reset-link/, 'a refresh does not show it again');

    const student = await findUserByEmail(t.runtime.db, 'student@example.com');
    const logged = t.logs.filter((l) => l.event === 'password.reset_requested');
    assert.equal(logged.length, 1);
    assert.equal(logged[0].userId, student!.id);
    assert.equal(logged[0].actorUserId, (await findUserByEmail(t.runtime.db, 'owner@example.com'))!.id);
    assert.equal(logged[0].schoolId, demo);
    assert.ok(!JSON.stringify(t.logs).includes(link!.split('/').at(-1)!), 'the token is never logged');

    const used = await useResetLink(t, link!, NEW_PASSWORD);
    assert.equal(used.status, 303);
    assert.equal(locationOf(used), '/password-reset/done');
    const signInNew = await signIn(new Browser(t), 'student@example.com', { password: NEW_PASSWORD });
    assert.equal(signInNew.status, 303);
    assert.equal(locationOf(signInNew), '/schools/demo/learn');
    const signInOld = await signIn(new Browser(t), 'student@example.com');
    assert.equal(signInOld.status, 401, 'the old password no longer works');
    assert.equal((await new Browser(t).request(new URL(link!).pathname)).status, 410, 'the link works once');
  });

  it('refuses an account also used at another school: the person resets it through "Forgot password?"', async () => {
    // lecturer@example.com joins Other School too, through an invitation accepted there.
    const otherOwner = await signedIn(t, 'other-owner@example.com');
    const sent = await submit(otherOwner, `/admin/${other}/members`, `/admin/${other}/invitations`, {
      email: 'lecturer@example.com',
      role: 'student',
    });
    const link = /id="invitation-link">([^<]+)</.exec(
      await (await otherOwner.request(locationOf(sent))).text(),
    )![1];
    const invitation = new URL(link).pathname;
    const lecturer = await signedIn(t, 'lecturer@example.com');
    const accept = formFields(await (await lecturer.request(invitation)).text(), `${invitation}/accept`);
    assert.equal((await lecturer.postForm(`${invitation}/accept`, accept)).status, 303);

    const members = await (await owner.request(`/admin/${demo}/members`)).text();
    const path = resetPathOf(members, 'lecturer@example.com')!;
    const before = await t.runtime.db.selectFrom('password_resets').select('token_hash').execute();
    const page = await owner.request(path);
    assert.equal(page.status, 403);
    const text = await page.text();
    assert.match(text, /also used outside this school/);
    assert.match(text, /Forgot password\?/);
    const post = await submit(owner, `/admin/${demo}/members`, path, {});
    assert.equal(post.status, 403);
    assert.match(await post.text(), /Forgot password\?/);
    const afterRows = await t.runtime.db.selectFrom('password_resets').select('token_hash').execute();
    assert.equal(afterRows.length, before.length, 'no link was made');
  });

  it('an admin may not start a reset for an owner; an owner may for an admin', async () => {
    await inviteNewPerson(t, owner, demo, 'new-admin@example.com', 'admin');
    const admin = await signedIn(t, 'new-admin@example.com');
    const asAdmin = await (await admin.request(`/admin/${demo}/members`)).text();
    assert.equal(
      resetPathOf(asAdmin, 'owner@example.com'),
      undefined,
      'no link on an owner’s row for an admin',
    );
    const ownerPath = resetPathOf(
      await (await owner.request(`/admin/${demo}/members`)).text(),
      'owner@example.com',
    )!;
    const page = await admin.request(ownerPath);
    assert.equal(page.status, 403);
    assert.match(await page.text(), /Only an owner can send a password reset link to an owner\./);
    const post = await submit(admin, `/admin/${demo}/members`, ownerPath, {});
    assert.equal(post.status, 403);
    const admins = (await findUserByEmail(t.runtime.db, 'new-admin@example.com'))!.id;
    assert.ok(
      !t.logs.some((l) => l.event === 'password.reset_requested' && l.actorUserId === admins),
      'no link was made',
    );

    // An admin may for a student of this school alone; an owner may for an admin.
    assert.equal((await admin.request(resetPathOf(asAdmin, 'student@example.com')!)).status, 200);
    const adminPath = resetPathOf(
      await (await owner.request(`/admin/${demo}/members`)).text(),
      'new-admin@example.com',
    )!;
    const done = await confirmReset(owner, adminPath);
    assert.equal(locationOf(done), `/admin/${demo}/members?done=reset`);
  });

  it('another school’s member is a 404 page; a student gets the 403 page', async () => {
    const otherStudent = await findUserByEmail(t.runtime.db, 'other-student@example.com');
    const row = await t.runtime.db
      .selectFrom('memberships')
      .select('id')
      .where('user_id', '=', otherStudent!.id)
      .executeTakeFirstOrThrow();
    assert.equal((await owner.request(`/admin/${demo}/members/${row.id}/password-reset`)).status, 404);
    const student = await signedIn(t, 'other-student@example.com');
    assert.equal((await student.request(`/admin/${other}/members/${row.id}/password-reset`)).status, 403);
  });
});

describe('an operator sends a member a password reset link (SMTP: emailed)', () => {
  let smtp: TestSmtpServer;
  let t: LoggedTestApp;
  let demo: string;

  before(async () => {
    smtp = await startTestSmtpServer();
    t = await createLoggedTestApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Lectern <no-reply@lectern.test>' });
    await seedDemoData(t.runtime.db);
    demo = (await findSchoolBySubdomain(t.runtime.db, 'demo'))!.id;
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  it('emails the link, the page says so and shows no link; the emailed link sets the password', async () => {
    const owner = await signedIn(t, 'owner@example.com');
    const path = resetPathOf(
      await (await owner.request(`/admin/${demo}/members`)).text(),
      'student@example.com',
    )!;
    const question = await (await owner.request(path)).text();
    assert.match(question, /The link is emailed to <strong>student@example\.com<\/strong>/);
    const sent = await confirmReset(owner, path);
    assert.equal(locationOf(sent), `/admin/${demo}/members?done=reset-email`);
    const page = await (await owner.request(locationOf(sent))).text();
    assert.match(page, /A password reset link was emailed to the person\./);
    assert.doesNotMatch(page, /password-reset-link/);

    const mail = await smtp.waitFor(
      (m) => m.envelopeTo.includes('student@example.com') && /Reset your/.test(m.subject),
    );
    const link = linkIn(mail, `${TEST_BASE_URL}/password-reset/`);
    assert.equal(locationOf(await useResetLink(t, link, NEW_PASSWORD)), '/password-reset/done');
    const signInNew = await signIn(new Browser(t), 'student@example.com', { password: NEW_PASSWORD });
    assert.equal(signInNew.status, 303);
    const logged = t.logs.filter((l) => l.event === 'password.reset_requested');
    assert.equal(logged.length, 1);
    assert.equal(logged[0].delivery, 'email');
  });
});
