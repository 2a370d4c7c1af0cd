/**
 * One person's account is shared by every school they belong to; nothing one school does may
 * reach that person at another school. Each case replays an attack through the real surfaces
 * (the admin REST API with operator tokens, the sign-in and invitation pages) with two schools.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { createInvitation } from '../../src/domain/school/invitations.ts';
import { findMembership } from '../../src/domain/school/memberships.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { ACCOUNT_FAILURE_LIMIT, createLoginApp } from '../../src/web/login.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { Browser, formFields, signIn } from '../support/oauth-flow.ts';
import { linkIn, startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { StatementCounter } from '../support/statements.ts';
import { issueTestToken } from '../support/tokens.ts';
import { csrfOf, locationOf, signedIn, userinfoStatus } from '../web/pages-support.ts';
import { api } from './api.ts';

type Call = ReturnType<typeof api>;

async function schools(t: TestApp) {
  const demo = (await findSchoolBySubdomain(t.runtime.db, 'demo'))!.id;
  const other = (await findSchoolBySubdomain(t.runtime.db, 'other'))!.id;
  return { demo, other };
}

async function operator(t: TestApp, email: string, schoolId: string): Promise<Call> {
  const user = await findUserByEmail(t.runtime.db, email);
  const { token } = await issueTestToken(t, {
    userId: user!.id,
    schoolId,
    scopes: OPERATOR_SCOPES,
    audience: 'operator',
  });
  return api(t, token);
}

/** The course ids of a school, by slug. */
async function courseId(t: TestApp, schoolId: string, slug: string): Promise<string> {
  const row = await t.runtime.db
    .selectFrom('courses')
    .select('id')
    .where('school_id', '=', schoolId)
    .where('slug', '=', slug)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Opens an invitation link as a person who is not signed in, and joins with a name and password. */
async function joinAsNewPerson(t: TestApp, path: string, password = 'a fresh password 1'): Promise<Browser> {
  const browser = new Browser(t);
  const page = await browser.request(path);
  assert.equal(page.status, 200);
  const fields = formFields(await page.text(), path);
  fields.set('name', 'Newcomer');
  fields.set('password', password);
  const res = await browser.postForm(path, fields);
  assert.equal(res.status, 303, `joined through ${path}`);
  return browser;
}

/** Accepts an invitation as the signed-in browser; answers the response. */
async function acceptSignedIn(browser: Browser, path: string): Promise<Response> {
  const page = await browser.request(path);
  const fields = formFields(await page.text(), `${path}/accept`);
  return browser.postForm(`${path}/accept`, fields);
}

const pathOf = (link: string) => new URL(link).pathname;

/** The membership id of the person with exactly this email (the search matches parts of emails). */
async function memberId(call: Call, email: string): Promise<string> {
  const found = await call('GET', `/api/v1/members?search=${encodeURIComponent(email)}`);
  return found.body.data.find((m: { email: string }) => m.email === email).id;
}

describe('nothing one school does reaches another school’s people', () => {
  let t: TestApp;
  let demo: string;
  let other: string;
  let demoOwner: Call;
  let otherOwner: Call;
  let python: string;

  before(async () => {
    t = await createTestApp();
    await seedDemoData(t.runtime.db);
    ({ demo, other } = await schools(t));
    demoOwner = await operator(t, 'owner@example.com', demo);
    otherOwner = await operator(t, 'other-owner@example.com', other);
    python = await courseId(t, other, 'einfuehrung-in-python');
  });
  after(() => t.close());

  it('enrolling by email joins nobody unasked, and answers alike for an account elsewhere and an unknown email', async () => {
    const known = await otherOwner('POST', '/api/v1/enrollments', {
      course_id: python,
      email: 'owner@example.com',
    });
    const unknown = await otherOwner('POST', '/api/v1/enrollments', {
      course_id: python,
      email: 'nobody-at-all@example.com',
      name: 'Nobody',
    });
    for (const [res, email] of [
      [known, 'owner@example.com'],
      [unknown, 'nobody-at-all@example.com'],
    ] as const) {
      assert.equal(res.status, 409);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.equal(res.body.code, 'not_a_member');
      assert.equal(
        res.body.detail,
        `${email} is not a member of this school. Invite them as a student with this course (POST /api/v1/members with "roles": ["student"] and "course_ids"): they are enrolled when they accept.`,
      );
      assert.ok(!JSON.stringify(res.body).includes('Olivia'), 'no name chosen at another school');
    }
    const owner = await findUserByEmail(t.runtime.db, 'owner@example.com');
    assert.equal(await findMembership(t.runtime.db, other, owner!.id), undefined, 'not made a member');
    assert.equal(
      await findUserByEmail(t.runtime.db, 'nobody-at-all@example.com'),
      undefined,
      'no account made',
    );
  });

  it('a school’s own member is enrolled by email at once; an invitation with courses enrols on accepting', async () => {
    const student = await otherOwner('POST', '/api/v1/enrollments', {
      course_id: python,
      email: 'Other-Student@example.com',
    });
    assert.equal(student.status, 409, 'already enrolled in the seeded course');
    assert.equal(student.body.code, 'already_enrolled');

    const invited = await otherOwner('POST', '/api/v1/members', {
      email: 'learner@example.com',
      roles: ['student'],
      course_ids: [python],
    });
    assert.equal(invited.status, 201);
    assert.deepEqual(invited.body.course_ids, [python]);
    const foreign = await otherOwner('POST', '/api/v1/members', {
      email: 'learner2@example.com',
      roles: ['student'],
      course_ids: [await courseId(t, demo, DEMO.courses.typescript)],
    });
    assert.equal(foreign.status, 422, 'another school’s course is no course here');
    await joinAsNewPerson(t, pathOf(invited.body.link));
    const list = await otherOwner('GET', '/api/v1/enrollments?email=learner@example.com');
    assert.equal(list.body.data.length, 1);
    assert.equal(list.body.data[0].course_id, python);
    assert.equal(list.body.data[0].lifetime, true);
  });

  it('failed sign-ins go into no school’s audit trail, and cost the same work for a known and an unknown email', async () => {
    for (let i = 0; i < 3; i++)
      await signIn(new Browser(t), 'lecturer@example.com', { password: 'wrong password' });
    for (const call of [demoOwner, otherOwner]) {
      const trail = await call('GET', '/api/v1/audit-events?limit=100');
      assert.equal(trail.status, 200);
      assert.ok(!trail.body.data.some((e: { type: string }) => e.type.startsWith('login.')));
      assert.ok(!JSON.stringify(trail.body).includes('client_address'));
      const filtered = await call('GET', '/api/v1/audit-events?type=login.failed');
      assert.equal(filtered.status, 422, 'not an event type of a school');
    }

    // The statements one failed sign-in runs, through the real /login form on a counting database.
    const counter = new StatementCounter();
    const login = createLoginApp({ ...t.runtime, db: t.runtime.db.withPlugin(counter) });
    const counted = {
      request: (path: string, init?: RequestInit) =>
        login.request(new URL(path, TEST_BASE_URL).toString(), init),
    } as TestApp;
    const failedSignIn = async (email: string) => {
      const browser = new Browser(counted);
      const page = await browser.request('/login');
      const fields = formFields(await page.text());
      fields.set('email', email);
      fields.set('password', 'not the password');
      counter.count = 0;
      assert.equal((await browser.postForm('/login', fields)).status, 401);
      return counter.count;
    };
    assert.equal(await failedSignIn('admin-less@example.com'), await failedSignIn('student@example.com'));
  });

  it('an operator lifts a lock only of an account that belongs to their school alone', async () => {
    // Demo Academy's owner joins Other School (she accepts, nobody adds her unasked).
    const invited = await otherOwner('POST', '/api/v1/members', {
      email: 'owner@example.com',
      roles: ['student'],
    });
    const owner = await signedIn(t, 'owner@example.com');
    assert.equal((await acceptSignedIn(owner, pathOf(invited.body.link))).status, 303);

    for (let i = 0; i < ACCOUNT_FAILURE_LIMIT; i++) {
      assert.equal((await signIn(new Browser(t), 'owner@example.com', { password: 'guess' })).status, 401);
    }
    assert.equal((await signIn(new Browser(t), 'owner@example.com')).status, 429);
    const memberAtOther = await memberId(otherOwner, 'owner@example.com');
    const lock = await otherOwner('GET', `/api/v1/members/${memberAtOther}/lock`);
    assert.deepEqual([lock.body.locked, lock.body.can_unlock], [true, false]);
    const page = await (await signedIn(t, 'other-owner@example.com')).request(`/admin/${other}/locked`);
    const html = await page.text();
    assert.match(html, /Only they can lift it/);
    assert.doesNotMatch(html, /aria-label="Unlock /);
    const unlock = await otherOwner('POST', `/api/v1/members/${memberAtOther}/unlock`);
    assert.equal(unlock.status, 403);
    assert.equal(unlock.body.code, 'unlock_not_allowed');
    // The console's Unlock asks the same rule (domain/school/lock-lifting.ts) and says why.
    const operator = await signedIn(t, 'other-owner@example.com');
    const locked = `/admin/${other}/locked`;
    const refused = await operator.postForm(`${locked}/unlock`, {
      csrf_token: await csrfOf(operator, locked),
      member: memberAtOther,
    });
    assert.equal(refused.status, 403);
    const words = await refused.text();
    assert.match(words, /<h1>Cannot unlock this account<\/h1>/);
    assert.match(words, /only they can lift the lock: by resetting their password/);
    assert.match(words, new RegExp(`<a href="${locked}">Back to locked accounts</a>`));
    assert.deepEqual((await otherOwner('GET', `/api/v1/members/${memberAtOther}/lock`)).body.locked, true);
    // Neither school may disarm it: she belongs to both.
    const memberAtDemo = await memberId(demoOwner, 'owner@example.com');
    assert.equal((await demoOwner('POST', `/api/v1/members/${memberAtDemo}/unlock`)).status, 403);
    // The next guesses are all refused as locked: 5 checked in the window, no more.
    for (let i = 0; i < 15; i++) {
      assert.equal(
        (await signIn(new Browser(t), 'owner@example.com', { password: `guess ${i}` })).status,
        429,
      );
    }

    // Someone who belongs to Demo Academy alone is unlocked by its operator.
    for (let i = 0; i < ACCOUNT_FAILURE_LIMIT; i++) {
      await signIn(new Browser(t), 'student@example.com', { password: 'guess' });
    }
    const student = await memberId(demoOwner, 'student@example.com');
    const lifted = await demoOwner('POST', `/api/v1/members/${student}/unlock`);
    assert.equal(lifted.status, 200);
    assert.equal(lifted.body.locked, false);
    assert.equal((await signIn(new Browser(t), 'student@example.com')).status, 303);
  });

  it('without SMTP, opening an invitation link tells nothing of other accounts; the account it makes is trusted at that school only', async () => {
    const existing = await otherOwner('POST', '/api/v1/members', {
      email: 'lecturer@example.com',
      roles: ['student'],
    });
    const fresh = await otherOwner('POST', '/api/v1/members', {
      email: 'fresh-person@example.com',
      roles: ['student'],
    });
    assert.equal(existing.body.delivery, 'link');
    const view = async (link: string, email: string) => {
      const res = await t.request(pathOf(link));
      assert.equal(res.status, 200);
      return (await res.text())
        .replaceAll(pathOf(link), '/invitations/TOKEN')
        .replaceAll(encodeURIComponent(pathOf(link)), 'TOKEN')
        .replaceAll(email, 'EMAIL')
        .replace(/name="csrf_token" value="[^"]+"/, '');
    };
    assert.equal(
      await view(existing.body.link, 'lecturer@example.com'),
      await view(fresh.body.link, 'fresh-person@example.com'),
    );

    // Whoever held the link (here, the inviter) chose the password: trusted at Other School only.
    const holder = await joinAsNewPerson(t, pathOf(fresh.body.link), 'chosen by the inviter');
    const made = await findUserByEmail(t.runtime.db, 'fresh-person@example.com');
    assert.equal(made!.unverified_school_id, other);
    const toDemo = await demoOwner('POST', '/api/v1/members', {
      email: 'fresh-person@example.com',
      roles: ['lecturer'],
    });
    const refused = await acceptSignedIn(holder, pathOf(toDemo.body.link));
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /is not confirmed yet/);
    assert.equal(await findMembership(t.runtime.db, demo, made!.id), undefined);
  });
});

describe('the mailbox’s owner takes over an account someone else made for their email', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let demo: string;
  let other: string;

  before(async () => {
    smtp = await startTestSmtpServer();
    t = await createTestApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Lectern <no-reply@lectern.test>' });
    await seedDemoData(t.runtime.db);
    ({ demo, other } = await schools(t));
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  it('an emailed invitation lets the owner set their own password: every old session and grant ends', async () => {
    // Made through a link handed to the inviter (as on a deployment without SMTP).
    const owner = await findUserByEmail(t.runtime.db, 'other-owner@example.com');
    const handed = await createInvitation(t.runtime.db, other, {
      email: 'claimed@example.com',
      roles: ['student'],
      invitedByUserId: owner!.id,
      emailed: false,
    });
    const inviter = await joinAsNewPerson(t, `/invitations/${handed.token}`, 'inviter knows this');
    const made = await findUserByEmail(t.runtime.db, 'claimed@example.com');
    assert.equal(made!.unverified_school_id, other);
    const { token: inviterToken } = await issueTestToken(t, {
      userId: made!.id,
      schoolId: other,
      scopes: ['openid', 'account:read'],
      audience: 'member',
    });
    assert.equal(await userinfoStatus(t, inviterToken), 200);

    // Demo Academy invites the same email; the link reaches the real mailbox.
    const demoOwner = await operator(t, 'owner@example.com', demo);
    const sent = await demoOwner('POST', '/api/v1/members', {
      email: 'claimed@example.com',
      roles: ['student'],
    });
    assert.equal(sent.status, 201);
    assert.equal(sent.body.delivery, 'email');
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes('claimed@example.com'));
    const path = pathOf(linkIn(mail, `${TEST_BASE_URL}/invitations/`));
    const realOwner = await joinAsNewPerson(t, path, 'the owner’s own password');
    assert.ok(realOwner.cookies.size > 0);

    const after = await findUserByEmail(t.runtime.db, 'claimed@example.com');
    assert.equal(after!.id, made!.id, 'the same account, taken over');
    assert.equal(after!.unverified_school_id, null, 'the email is proven');
    assert.equal(after!.name, 'Newcomer');
    assert.equal(await userinfoStatus(t, inviterToken), 401, 'the inviter’s grant is gone');
    const stale = await inviter.request('/account');
    assert.equal(stale.status, 302, 'the inviter’s session is gone');
    assert.match(locationOf(stale), /^\/login/);
    assert.equal(
      (await signIn(new Browser(t), 'claimed@example.com', { password: 'inviter knows this' })).status,
      401,
    );
    assert.equal(
      (await signIn(new Browser(t), 'claimed@example.com', { password: 'the owner’s own password' })).status,
      303,
    );
    assert.ok(await findMembership(t.runtime.db, demo, made!.id));
  });

  it('an emailed link does not take over an account whose owner proved the email: they sign in instead', async () => {
    const otherOwner = await operator(t, 'other-owner@example.com', other);
    const sent = await otherOwner('POST', '/api/v1/members', {
      email: 'student@example.com',
      roles: ['student'],
    });
    const mail = await smtp.waitFor(
      (m) => m.envelopeTo.includes('student@example.com') && /Join|invit/i.test(m.subject),
    );
    const path = pathOf(linkIn(mail, `${TEST_BASE_URL}/invitations/`));
    assert.equal(sent.status, 201);
    const browser = new Browser(t);
    const fields = formFields(await (await browser.request(path)).text(), path);
    fields.set('name', 'Someone');
    fields.set('password', 'another password 1');
    const res = await browser.postForm(path, fields);
    assert.equal(res.status, 409);
    assert.match(await res.text(), /already has a Lectern account/);
    assert.equal((await signIn(new Browser(t), 'student@example.com')).status, 303, 'password unchanged');
  });
});
