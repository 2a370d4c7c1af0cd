/**
 * The invitation pages: `/invitations/<token>` for the invited person and
 * `/admin/<school>/members` for operators. Bad links get clear pages (404/410, never a 5xx),
 * forms carry CSRF tokens, changes answer with a redirect, and the one-time link is shown once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { INVITATION_LIFETIME_SECONDS } from '../../src/domain/school/invitations.ts';
import { findMembership } from '../../src/domain/school/memberships.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { SECOND } from '../support/clock.ts';
import { Browser, formFields } from '../support/oauth-flow.ts';
import { assertPageHeaders, csrfOf, locationOf, signedIn, submit } from './pages-support.ts';

describe('invitation pages', () => {
  let t: TestApp;
  let demo: string;
  let other: string;
  let owner: Browser;
  let otherOwner: Browser;

  before(async () => {
    t = await createTestApp();
    await seedDemoData(t.runtime.db);
    demo = (await findSchoolBySubdomain(t.runtime.db, 'demo'))!.id;
    other = (await findSchoolBySubdomain(t.runtime.db, 'other'))!.id;
    owner = await signedIn(t, 'owner@example.com');
    otherOwner = await signedIn(t, 'other-owner@example.com');
  });
  after(() => t.close());

  const members = (school = demo) => `/admin/${school}/members`;

  /** Invites through the members page; returns the link shown once after the redirect. */
  async function inviteByPage(
    browser: Browser,
    email: string,
    roles: string[],
    school = demo,
  ): Promise<string> {
    const res = await submit(browser, members(school), `/admin/${school}/invitations`, {
      email,
      role: roles,
    });
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `${members(school)}?done=invited`);
    const page = await browser.request(locationOf(res));
    const html = await page.text();
    const link = /id="invitation-link">([^<]+)</.exec(html)?.[1];
    assert.ok(link, 'the link is shown after the redirect');
    return new URL(link).pathname;
  }

  async function invitationIdOf(email: string, school = demo): Promise<string> {
    const row = await t.runtime.db
      .selectFrom('invitations')
      .select('id')
      .where('school_id', '=', school)
      .where('email', '=', email)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  describe('/admin/<school>/members', () => {
    it('lists people and invitations; inviting redirects, and the link is shown once (a refresh shows nothing)', async () => {
      const page = await owner.request(members());
      assert.equal(page.status, 200);
      assertPageHeaders(page);
      const html = await page.text();
      assert.match(html, /Demo Academy · Members/);
      assert.match(html, /lecturer@example\.com/);
      assert.ok(!html.includes('other-lecturer@example.com'), 'no one of another school');
      const path = await inviteByPage(owner, 'page-invite@example.com', ['lecturer']);
      assert.match(path, /^\/invitations\/[A-Za-z0-9_-]{43}$/);
      const refresh = await (await owner.request(`${members()}?done=invited`)).text();
      assert.ok(!refresh.includes(path), 'a refresh does not show the link again');
      assert.match(refresh, /page-invite@example\.com/);
      const count = await t.runtime.db
        .selectFrom('invitations')
        .select('id')
        .where('email', '=', 'page-invite@example.com')
        .execute();
      assert.equal(count.length, 1, 'and creates nothing');
    });

    it('resend shows a new link once and kills the old; revoke kills the link', async () => {
      const first = await inviteByPage(owner, 'page-resend@example.com', ['student']);
      const id = await invitationIdOf('page-resend@example.com');
      const resent = await submit(owner, members(), `/admin/${demo}/invitations/${id}/resend`, {});
      assert.equal(resent.status, 303);
      assert.equal(locationOf(resent), `${members()}?done=resent`);
      const html = await (await owner.request(locationOf(resent))).text();
      const second = new URL(/id="invitation-link">([^<]+)</.exec(html)![1]).pathname;
      assert.notEqual(second, first);
      assert.equal((await t.request(first)).status, 404);
      const revoked = await submit(owner, members(), `/admin/${demo}/invitations/${id}/revoke`, {});
      assert.equal(locationOf(revoked), `${members()}?done=revoked`);
      const gone = await t.request(second);
      assert.equal(gone.status, 410);
      assert.match(await gone.text(), /was withdrawn/);
    });

    it('changes roles and removes a member after a confirmation page; the owner rules hold', async () => {
      const lecturer = await findUserByEmail(t.runtime.db, 'lecturer@example.com');
      const m = await findMembership(t.runtime.db, demo, lecturer!.id);
      const saved = await submit(owner, members(), `/admin/${demo}/members/${m!.id}/roles`, {
        role: ['lecturer', 'admin'],
      });
      assert.equal(locationOf(saved), `${members()}?done=roles`);
      assert.deepEqual((await findMembership(t.runtime.db, demo, lecturer!.id))!.roles, [
        'admin',
        'lecturer',
      ]);
      // Now an admin: may not grant the owner role, nor invite an owner.
      const admin = await signedIn(t, 'lecturer@example.com');
      const promote = await submit(admin, members(), `/admin/${demo}/members/${m!.id}/roles`, {
        role: ['owner'],
      });
      assert.equal(promote.status, 403);
      assert.match(await promote.text(), /Only an owner can grant, change or remove the owner role/);
      const ownerInvite = await submit(admin, members(), `/admin/${demo}/invitations`, {
        email: 'boss@example.com',
        role: ['owner'],
      });
      assert.equal(ownerInvite.status, 403);
      // The last owner stays.
      const ownerUser = await findUserByEmail(t.runtime.db, 'owner@example.com');
      const ownerMembership = await findMembership(t.runtime.db, demo, ownerUser!.id);
      const demote = await submit(owner, members(), `/admin/${demo}/members/${ownerMembership!.id}/roles`, {
        role: ['admin'],
      });
      assert.equal(demote.status, 409);
      assert.match(await demote.text(), /at least one active owner/);
      // Removing asks first.
      const student = await findUserByEmail(t.runtime.db, 'student@example.com');
      const sm = await findMembership(t.runtime.db, demo, student!.id);
      const confirm = await owner.request(`${members()}/${sm!.id}/remove`);
      assert.equal(confirm.status, 200);
      assert.match(await confirm.text(), /Remove Sam Student\?/);
      const removed = await submit(owner, members(), `${members()}/${sm!.id}/remove`, {});
      assert.equal(locationOf(removed), `${members()}?done=removed`);
      assert.equal(await findMembership(t.runtime.db, demo, student!.id), undefined);
    });

    it('refuses a form without its CSRF token (403) and bad input with the reason (422)', async () => {
      const forged = await owner.postForm(`/admin/${demo}/invitations`, {
        email: 'x@example.com',
        role: 'student',
      });
      assert.equal(forged.status, 403);
      const bad = await submit(owner, members(), `/admin/${demo}/invitations`, { email: 'not-an-email' });
      assert.equal(bad.status, 422);
      const html = await bad.text();
      assert.match(html, /email must be an email address/);
      assert.match(html, /roles must be a non-empty list/);
    });

    it('another school’s operator can neither open, change nor detect this school’s invitations or members', async () => {
      assert.equal((await otherOwner.request(members())).status, 403);
      await inviteByPage(owner, 'secret-invite@example.com', ['lecturer']);
      const id = await invitationIdOf('secret-invite@example.com');
      const unknown = `${id.slice(0, -4)}zzzz`;
      for (const action of ['resend', 'revoke']) {
        const theirs = await submit(
          otherOwner,
          members(other),
          `/admin/${other}/invitations/${id}/${action}`,
          {},
        );
        const missing = await submit(
          otherOwner,
          members(other),
          `/admin/${other}/invitations/${unknown}/${action}`,
          {},
        );
        assert.equal(theirs.status, 404);
        assert.equal(missing.status, 404);
        assert.equal(await theirs.text(), await missing.text());
      }
      // Posting straight to Demo Academy's path is the 403 of a non-operator.
      const direct = await otherOwner.postForm(`/admin/${demo}/invitations/${id}/revoke`, {
        csrf_token: await csrfOf(otherOwner, members(other)),
      });
      assert.equal(direct.status, 403);
      const lecturer = await findUserByEmail(t.runtime.db, 'lecturer@example.com');
      const m = await findMembership(t.runtime.db, demo, lecturer!.id);
      const roles = await submit(otherOwner, members(other), `/admin/${other}/members/${m!.id}/roles`, {
        role: ['student'],
      });
      assert.equal(roles.status, 404);
      assert.equal((await otherOwner.request(`${members(other)}/${m!.id}/remove`)).status, 404);
      const removal = await submit(otherOwner, members(other), `${members(other)}/${m!.id}/remove`, {});
      assert.equal(removal.status, 404);
      assert.ok(await findMembership(t.runtime.db, demo, lecturer!.id), 'still a member of Demo Academy');
      const still = await t.runtime.db
        .selectFrom('invitations')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(still.revoked_at, null);
      // Inviting Demo Academy's owner from Other School shows nothing about that account.
      await inviteByPage(otherOwner, 'owner@example.com', ['admin'], other);
      const page = await (await otherOwner.request(members(other))).text();
      assert.ok(!page.includes('Olivia'));
      assert.equal(
        await findMembership(
          t.runtime.db,
          other,
          (await findUserByEmail(t.runtime.db, 'owner@example.com'))!.id,
        ),
        undefined,
      );
    });
  });

  describe('/invitations/<token>', () => {
    it('a new person sets a name and password (CSRF, ≥ 8 characters) and is signed in with the role', async () => {
      const path = await inviteByPage(owner, 'newbie@example.com', ['lecturer']);
      const visitor = new Browser(t);
      const page = await visitor.request(path);
      assert.equal(page.status, 200);
      assertPageHeaders(page);
      const html = await page.text();
      assert.match(html, /Olivia Owner invited you to join <strong>Demo Academy<\/strong>/);
      const fields = formFields(html, path);
      const noCsrf = await visitor.postForm(path, { name: 'Nina', password: 'long-enough' });
      assert.equal(noCsrf.status, 403);
      const short = await visitor.postForm(path, {
        ...Object.fromEntries(fields),
        name: 'Nina',
        password: 'short',
      });
      assert.equal(short.status, 422);
      assert.match(await short.text(), /The password must be at least 8 characters\./);
      const noName = await visitor.postForm(path, {
        ...Object.fromEntries(fields),
        name: '  ',
        password: 'long-enough',
      });
      assert.equal(noName.status, 422);
      assert.match(
        await noName.text(),
        /<div class="notice error" role="alert" id="form-error"><p>Enter your name\.<\/p>/,
      );
      // The one name rule (domain/school/person-name.ts), the same as the settings page and the Account API.
      const overridden = await visitor.postForm(path, {
        ...Object.fromEntries(fields),
        name: 'Nina\u202Egnp.exe',
        password: 'long-enough',
      });
      assert.equal(overridden.status, 422);
      assert.match(await overridden.text(), /A name cannot contain control or text-direction characters\./);
      const ok = await visitor.postForm(path, {
        ...Object.fromEntries(fields),
        name: `Nina New ${'n'.repeat(191)}`,
        password: 'long-enough',
      });
      assert.equal(ok.status, 303);
      assert.equal(locationOf(ok), '/account');
      assert.equal((await visitor.request('/account')).status, 200);
      const user = await findUserByEmail(t.runtime.db, 'newbie@example.com');
      assert.equal(user?.name.length, 200, 'a name of 200 characters is a name everywhere');
      assert.deepEqual((await findMembership(t.runtime.db, demo, user!.id))!.roles, ['lecturer']);
      const reused = await new Browser(t).request(path);
      assert.equal(reused.status, 410);
      assert.match(await reused.text(), /already used/);
      const replay = await visitor.postForm(path, {
        ...Object.fromEntries(fields),
        name: 'Again',
        password: 'long-enough',
      });
      assert.equal(replay.status, 410);
    });

    it('forged, malformed and expired links get a clear page (404 / 410), never a 5xx', async () => {
      for (const path of [
        '/invitations/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        '/invitations/x',
        '/invitations/%00%ff',
      ]) {
        const res = await t.request(path);
        assert.equal(res.status, 404, path);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
        assert.match(await res.text(), /This invitation link is not valid/);
      }
      const forgedPost = await new Browser(t).postForm('/invitations/x', {
        name: 'A',
        password: 'long-enough',
      });
      assert.equal(forgedPost.status, 404);
      const path = await inviteByPage(owner, 'expired@example.com', ['student']);
      // A lifetime and a second later the link has expired.
      const res = await t.clock.travel((INVITATION_LIFETIME_SECONDS + 1) * SECOND, () => t.request(path));
      assert.equal(res.status, 410);
      assert.match(await res.text(), /has expired/);
    });

    it('an existing account must sign in as the invited email and press Accept before any role applies', async () => {
      const path = await inviteByPage(otherOwner, 'student@example.com', ['admin'], other);
      const student = (await findUserByEmail(t.runtime.db, 'student@example.com'))!;
      const anonymous = await t.request(path);
      assert.equal(anonymous.status, 200);
      const text = await anonymous.text();
      assert.match(text, new RegExp(`href="/login\\?return_to=${encodeURIComponent(path)}"`));
      // The same page as for a new person (the link's holder may be the inviter): the POST below
      // is what refuses to set a password on an existing account.
      assert.match(text, /name="password"/);
      // Signed in as someone else: told which account the invitation is for, and refused.
      const wrong = await signedIn(t, 'lecturer@example.com');
      const told = await wrong.request(path);
      assert.equal(told.status, 403);
      assert.match(
        await told.text(),
        /This invitation is for <strong>student@example\.com<\/strong>, but you are signed in as <strong>lecturer@example\.com<\/strong>/,
      );
      const wrongAccept = await wrong.postForm(`${path}/accept`, {
        csrf_token: await csrfOf(wrong, '/account'),
      });
      assert.equal(wrongAccept.status, 403);
      assert.equal(await findMembership(t.runtime.db, other, student.id), undefined);
      // A new-person POST for an existing account is refused too.
      const intruder = new Browser(t);
      const fields = formFields(await (await intruder.request('/login')).text());
      const takeover = await intruder.postForm(path, {
        ...Object.fromEntries(fields),
        name: 'X',
        password: 'long-enough',
      });
      assert.equal(takeover.status, 409);
      assert.match(await takeover.text(), /already has a Lectern account/);
      assert.equal(await findMembership(t.runtime.db, other, student.id), undefined);
      // The right account accepts.
      const right = await signedIn(t, 'student@example.com');
      const page = await right.request(path);
      assert.equal(page.status, 200);
      const accept = formFields(await page.text(), `${path}/accept`);
      assert.equal(await findMembership(t.runtime.db, other, student.id), undefined, 'no role before Accept');
      const res = await right.postForm(`${path}/accept`, accept);
      assert.equal(res.status, 303);
      assert.equal(locationOf(res), `/admin/${other}`);
      assert.deepEqual((await findMembership(t.runtime.db, other, student.id))!.roles, ['admin']);
      assert.equal((await right.postForm(`${path}/accept`, accept)).status, 410);
    });

    it('throttles attempts per invitation (10 in 15 minutes), with Retry-After', async () => {
      const path = await inviteByPage(owner, 'throttled@example.com', ['student']);
      const visitor = new Browser(t);
      const fields = formFields(await (await visitor.request(path)).text(), path);
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await visitor.postForm(path, {
          ...Object.fromEntries(fields),
          name: 'T',
          password: 'short',
        });
        statuses.push(res.status);
        if (res.status === 429) assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
      }
      assert.deepEqual(statuses, [...Array(10).fill(422), 429]);
    });
  });
});
