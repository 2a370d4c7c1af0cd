/**
 * Invitations through the admin REST API and its MCP tools: single-use, expiring,
 * hashed at rest, the same answer whether or not the email has an account (no cross-school
 * oracle), one-time links never stored or logged, and isolation between schools.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../../src/crypto/tokens.ts';
import { DEMO_PASSWORD, seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { INVITATION_LIFETIME_SECONDS } from '../../src/domain/school/invitations.ts';
import { findMembership } from '../../src/domain/school/memberships.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { SECOND } from '../support/clock.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';
import { Browser, formFields, signIn } from '../support/oauth-flow.ts';
import { linkIn, startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { issueTestToken } from '../support/tokens.ts';
import { locationOf } from '../web/pages-support.ts';
import { api } from './api.ts';

const LINK = /^http:\/\/lectern\.test\/invitations\/([A-Za-z0-9_-]{43})$/;
const tokenOf = (link: string) => LINK.exec(link)?.[1] ?? assert.fail(`not an invitation link: ${link}`);

interface DemoIds {
  schoolId: string;
  otherSchoolId: string;
  ownerId: string;
  otherOwnerId: string;
}

/** The demo data (product.md §9) and the ids these tests use. */
async function seedDemo(t: LoggedTestApp): Promise<DemoIds> {
  const db = t.runtime.db;
  await seedDemoData(db);
  return {
    schoolId: (await findSchoolBySubdomain(db, 'demo'))!.id,
    otherSchoolId: (await findSchoolBySubdomain(db, 'other'))!.id,
    ownerId: (await findUserByEmail(db, 'owner@example.com'))!.id,
    otherOwnerId: (await findUserByEmail(db, 'other-owner@example.com'))!.id,
  };
}

async function operator(t: LoggedTestApp, userId: string, schoolId: string, scopes = ['members:write']) {
  return api(t, (await issueTestToken(t, { userId, schoolId, scopes, audience: 'operator' })).token);
}

/** A new person follows the link, sets a name and password, and is signed in. */
async function join(t: LoggedTestApp, link: string, name = 'New Person', password = 'a-good-password') {
  const browser = new Browser(t);
  const path = new URL(link).pathname;
  const page = await browser.request(path);
  assert.equal(page.status, 200);
  const fields = formFields(await page.text(), path);
  fields.set('name', name);
  fields.set('password', password);
  return { browser, res: await browser.postForm(path, fields) };
}

describe('admin API: invitations', () => {
  let t: LoggedTestApp;
  let ids: DemoIds;
  let demoOwner: ReturnType<typeof api>;
  let otherOwner: ReturnType<typeof api>;

  before(async () => {
    t = await createLoggedTestApp();
    ids = await seedDemo(t);
    demoOwner = await operator(t, ids.ownerId, ids.schoolId);
    otherOwner = await operator(t, ids.otherOwnerId, ids.otherSchoolId);
  });
  after(() => t.close());

  it('answers the inviter the same whether or not the email has an account, naming no one (no cross-school oracle)', async () => {
    const known = await otherOwner('POST', '/api/v1/members', {
      email: 'owner@example.com',
      roles: ['admin'],
    });
    const unknown = await otherOwner('POST', '/api/v1/members', {
      email: 'nobody@example.com',
      roles: ['admin'],
    });
    assert.equal(known.status, 201);
    assert.equal(unknown.status, 201);
    const shape = (body: Record<string, unknown>) => {
      const { id, email, link, created_at, updated_at, expires_at, ...rest } = body;
      return { keys: Object.keys(body).sort(), rest };
    };
    assert.deepEqual(shape(known.body), shape(unknown.body));
    assert.deepEqual(shape(known.body).rest, {
      roles: ['admin'],
      status: 'pending',
      invited_by_user_id: ids.otherOwnerId,
      course_ids: [],
      accepted_at: null,
      revoked_at: null,
      delivery: 'link',
    });
    assert.doesNotMatch(JSON.stringify(known.body), /Olivia|active/i);
    assert.ok(!JSON.stringify(known.body).includes(ids.ownerId), 'the account’s id is not shown');
    assert.equal(known.headers.get('content-type'), unknown.headers.get('content-type'));
    // Nobody became a member, and no account was made for the unknown email.
    assert.equal(await findMembership(t.runtime.db, ids.otherSchoolId, ids.ownerId), undefined);
    assert.equal(await findUserByEmail(t.runtime.db, 'nobody@example.com'), undefined);
    const members = await otherOwner('GET', '/api/v1/members?limit=100');
    assert.ok(!JSON.stringify(members.body).includes('"email":"owner@example.com"'));
  });

  it('stores only the SHA-256 of the link’s token, and the link is BASE_URL/invitations/<token>', async () => {
    const r = await demoOwner('POST', '/api/v1/members', { email: 'hash@example.com', roles: ['lecturer'] });
    const token = tokenOf(r.body.link);
    const row = await t.runtime.db
      .selectFrom('invitations')
      .selectAll()
      .where('id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.token_hash, sha256(token));
    assert.ok(!JSON.stringify(row).includes(token));
    // The link is shown on create only: reading the invitation never shows it again.
    const read = await demoOwner('GET', `/api/v1/invitations/${r.body.id}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.link, undefined);
    assert.equal(read.body.delivery, undefined);
    assert.equal(Date.parse(row.expires_at) - Date.parse(row.created_at), 7 * 24 * 3600 * 1000);
  });

  it('an Idempotency-Key replay answers the same invitation without the link, which is never stored', async () => {
    const headers = { 'idempotency-key': 'invite-once-1' };
    const body = { email: 'replay@example.com', roles: ['student'] };
    const first = await demoOwner('POST', '/api/v1/members', body, headers);
    assert.equal(first.status, 201);
    const token = tokenOf(first.body.link);
    const replay = await demoOwner('POST', '/api/v1/members', body, headers);
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.body.id, first.body.id);
    assert.equal(replay.body.link, undefined);
    const stored = await t.runtime.db.selectFrom('idempotency_keys').select('response_body').execute();
    assert.ok(stored.every((s) => !s.response_body.includes(token)));
  });

  it('lists by status (pending, accepted, expired, revoked) in cursor pages', async () => {
    const make = async (email: string) =>
      (await demoOwner('POST', '/api/v1/members', { email, roles: ['student'] })).body;
    const pending = await make('st-pending@example.com');
    const accepted = await make('st-accepted@example.com');
    // Invited a lifetime and a minute ago: expired a minute ago.
    const expired = await t.clock.travel(-(INVITATION_LIFETIME_SECONDS + 60) * SECOND, () =>
      make('st-expired@example.com'),
    );
    const revoked = await make('st-revoked@example.com');
    assert.equal((await join(t, accepted.link)).res.status, 303);
    assert.equal((await demoOwner('POST', `/api/v1/invitations/${revoked.id}/revoke`)).status, 200);
    for (const [status, inv] of Object.entries({ pending, accepted, expired, revoked })) {
      const r = await demoOwner('GET', `/api/v1/invitations?status=${status}&search=st-&limit=100`);
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.body.data.map((i: { id: string; status: string }) => [i.id, i.status]),
        [[inv.id, status]],
      );
    }
    const first = await demoOwner('GET', '/api/v1/invitations?search=st-&limit=1');
    assert.equal(first.body.data.length, 1);
    const second = await demoOwner(
      'GET',
      `/api/v1/invitations?search=st-&limit=1&cursor=${first.body.next_cursor}`,
    );
    assert.notEqual(second.body.data[0].id, first.body.data[0].id);
    const bad = await demoOwner('GET', '/api/v1/invitations?status=invited');
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, 'validation_failed');
  });

  it('resend gives a new link and kills the old one; revoke kills the link; closed ones are a 409', async () => {
    const r = await demoOwner('POST', '/api/v1/members', {
      email: 'resend@example.com',
      roles: ['lecturer'],
    });
    const resent = await demoOwner('POST', `/api/v1/invitations/${r.body.id}/resend`);
    assert.equal(resent.status, 200);
    assert.notEqual(resent.body.link, r.body.link);
    assert.ok(resent.body.expires_at >= r.body.expires_at);
    assert.equal((await t.request(new URL(r.body.link).pathname)).status, 404);
    assert.equal((await t.request(new URL(resent.body.link).pathname)).status, 200);
    const revoked = await demoOwner('POST', `/api/v1/invitations/${r.body.id}/revoke`);
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.status, 'revoked');
    assert.equal((await t.request(new URL(resent.body.link).pathname)).status, 410);
    const again = await demoOwner('POST', `/api/v1/invitations/${r.body.id}/revoke`);
    assert.deepEqual(again.body, revoked.body);
    const closed = await demoOwner('POST', `/api/v1/invitations/${r.body.id}/resend`);
    assert.equal(closed.status, 409);
    assert.equal(closed.headers.get('content-type'), 'application/problem+json');
    assert.equal(closed.body.code, 'invitation_closed');
    // Expired invitations can be resent: a fresh 7 days.
    const old = await t.clock.travel(-(INVITATION_LIFETIME_SECONDS + 1) * SECOND, () =>
      demoOwner('POST', '/api/v1/members', { email: 'late@example.com', roles: ['student'] }),
    );
    assert.equal(old.body.status, 'pending');
    const renewed = await demoOwner('POST', `/api/v1/invitations/${old.body.id}/resend`);
    assert.equal(renewed.body.status, 'pending');
  });

  it('only owners invite owners, or resend and revoke their invitations (403 owner_required)', async () => {
    const lecturer = await findUserByEmail(t.runtime.db, 'lecturer@example.com');
    await t.runtime.db
      .updateTable('memberships')
      .set({ roles: JSON.stringify(['admin', 'lecturer']) })
      .where('user_id', '=', lecturer!.id)
      .where('school_id', '=', ids.schoolId)
      .execute();
    const admin = await operator(t, lecturer!.id, ids.schoolId);
    const refused = await admin('POST', '/api/v1/members', { email: 'boss@example.com', roles: ['owner'] });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'owner_required');
    const ownerInvite = await demoOwner('POST', '/api/v1/members', {
      email: 'co-owner@example.com',
      roles: ['owner'],
    });
    assert.equal(
      (await admin('POST', `/api/v1/invitations/${ownerInvite.body.id}/resend`)).body.code,
      'owner_required',
    );
    assert.equal(
      (await admin('POST', `/api/v1/invitations/${ownerInvite.body.id}/revoke`)).body.code,
      'owner_required',
    );
    assert.equal(
      (await admin('POST', '/api/v1/members', { email: 'helper@example.com', roles: ['lecturer'] })).status,
      201,
    );
  });

  it('another school’s operator can neither list, read, resend nor revoke an invitation, nor tell it exists', async () => {
    const r = await demoOwner('POST', '/api/v1/members', {
      email: 'private@example.com',
      roles: ['lecturer'],
    });
    const list = await otherOwner('GET', '/api/v1/invitations?limit=100');
    assert.equal(list.status, 200);
    assert.ok(!JSON.stringify(list.body).includes('private@example.com'));
    assert.ok(!JSON.stringify(list.body).includes(r.body.id));
    const unknownId = `${r.body.id.slice(0, -4)}zzzz`;
    for (const [method, path] of [
      ['GET', `/api/v1/invitations/${r.body.id}`],
      ['POST', `/api/v1/invitations/${r.body.id}/resend`],
      ['POST', `/api/v1/invitations/${r.body.id}/revoke`],
    ]) {
      const theirs = await otherOwner(method, path);
      const missing = await otherOwner(method, path.replace(r.body.id, unknownId));
      assert.equal(theirs.status, 404, `${method} ${path}`);
      assert.deepEqual(
        { ...theirs.body, request_id: 0, instance: 0 },
        { ...missing.body, request_id: 0, instance: 0 },
      );
    }
    // The other school inviting the same email is its own business, and tells it nothing.
    const same = await otherOwner('POST', '/api/v1/members', {
      email: 'private@example.com',
      roles: ['lecturer'],
    });
    assert.equal(same.status, 201);
    const still = await demoOwner('GET', `/api/v1/invitations/${r.body.id}`);
    assert.equal(still.body.status, 'pending');
  });

  it('logs each change as a security event, never with the link or its token', async () => {
    const r = await demoOwner('POST', '/api/v1/members', {
      email: 'logged@example.com',
      roles: ['lecturer'],
    });
    const resent = await demoOwner('POST', `/api/v1/invitations/${r.body.id}/resend`);
    const { res } = await join(t, resent.body.link, 'Logged Person');
    assert.equal(res.status, 303);
    const user = await findUserByEmail(t.runtime.db, 'logged@example.com');
    const member = (await demoOwner('GET', '/api/v1/members?search=logged@&limit=100')).body.data[0];
    assert.equal(member.user_id, user!.id);
    assert.equal(
      (await demoOwner('PATCH', `/api/v1/members/${member.id}`, { roles: ['admin'] })).status,
      200,
    );
    assert.equal((await demoOwner('DELETE', `/api/v1/members/${member.id}`)).status, 204);
    const other = await demoOwner('POST', '/api/v1/members', {
      email: 'logged2@example.com',
      roles: ['student'],
    });
    await demoOwner('POST', `/api/v1/invitations/${other.body.id}/revoke`);
    const events = t.logs.filter((l) => typeof l.event === 'string');
    const about = (event: string) => events.filter((l) => l.event === event);
    assert.ok(
      about('invitation.created').some((l) => l.invitationId === r.body.id && l.actorUserId === ids.ownerId),
    );
    assert.ok(about('invitation.resent').some((l) => l.invitationId === r.body.id));
    assert.ok(
      about('invitation.accepted').some((l) => l.invitationId === r.body.id && l.userId === user!.id),
    );
    assert.ok(about('member.role_changed').some((l) => l.memberId === member.id));
    assert.ok(about('member.removed').some((l) => l.memberId === member.id));
    assert.ok(about('invitation.revoked').some((l) => l.invitationId === other.body.id));
    for (const l of events) assert.equal(l.level, 30, 'security events are logged at info');
    const all = JSON.stringify(t.logs);
    for (const link of [r.body.link, resent.body.link, other.body.link]) {
      assert.ok(!all.includes(tokenOf(link)), 'no log line holds an invitation token');
    }
  });
});

describe('invitations by email (SMTP_URL set)', () => {
  let smtp: TestSmtpServer;
  let t: LoggedTestApp;
  let ids: DemoIds;
  let demoOwner: ReturnType<typeof api>;

  before(async () => {
    smtp = await startTestSmtpServer();
    t = await createLoggedTestApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Lectern <no-reply@lectern.test>' });
    ids = await seedDemo(t);
    demoOwner = await operator(t, ids.ownerId, ids.schoolId);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  it('mails the link (text and HTML, naming the school and the inviter); the person follows it, joins and signs in', async () => {
    const r = await demoOwner('POST', '/api/v1/members', { email: 'Lena@Example.com', roles: ['lecturer'] });
    assert.equal(r.status, 201);
    assert.equal(r.body.delivery, 'email');
    assert.equal(r.body.link, undefined, 'the operator never sees a mailed link');
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes('lena@example.com'));
    assert.equal(mail.from, '"Demo Academy" <no-reply@lectern.test>');
    assert.equal(mail.subject, 'Join Demo Academy on Lectern');
    assert.match(mail.text, /Olivia Owner invites you to join Demo Academy on Lectern as lecturer\./);
    assert.match(mail.html, /<strong>Demo Academy<\/strong>/);
    const link = linkIn(mail, 'http://lectern.test/invitations/');
    assert.ok(mail.html.includes(`href="${link}"`));
    const { browser, res } = await join(t, link, 'Lena Lecturer', 'lena-password');
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), '/account');
    assert.equal((await browser.request('/account')).status, 200);
    const fresh = new Browser(t);
    const signedIn = await signIn(fresh, 'lena@example.com', { password: 'lena-password' });
    assert.equal(signedIn.status, 303);
    const user = await findUserByEmail(t.runtime.db, 'lena@example.com');
    assert.equal(user!.name, 'Lena Lecturer');
    assert.deepEqual((await findMembership(t.runtime.db, ids.schoolId, user!.id))!.roles, ['lecturer']);
    assert.equal((await new Browser(t).request(new URL(link).pathname)).status, 410, 'the link works once');
    const logged = JSON.stringify(t.logs);
    assert.ok(!logged.includes(new URL(link).pathname.split('/').pop()!), 'the mailed token is never logged');
  });

  it('resending mails a new link; an existing account signs in and accepts', async () => {
    const r = await demoOwner('POST', '/api/v1/members', {
      email: 'other-lecturer@example.com',
      roles: ['lecturer'],
    });
    const resent = await demoOwner('POST', `/api/v1/invitations/${r.body.id}/resend`);
    assert.equal(resent.body.delivery, 'email');
    await smtp.waitFor((m) => m.envelopeTo.includes('other-lecturer@example.com'));
    const mails = smtp.messages.filter((m) => m.envelopeTo.includes('other-lecturer@example.com'));
    await smtp.waitFor(
      () => smtp.messages.filter((m) => m.envelopeTo.includes('other-lecturer@example.com')).length === 2,
    );
    const link = linkIn(
      smtp.messages.filter((m) => m.envelopeTo.includes('other-lecturer@example.com'))[1],
      'http://lectern.test/invitations/',
    );
    assert.ok(mails.length >= 1);
    const path = new URL(link).pathname;
    const browser = new Browser(t);
    const anonymous = await browser.request(path);
    assert.equal(anonymous.status, 200);
    assert.match(
      await anonymous.text(),
      /Already use Lectern with other-lecturer@example\.com\? <a [^>]+>Sign in to accept<\/a>/,
    );
    assert.equal(
      (await signIn(browser, 'other-lecturer@example.com', { password: DEMO_PASSWORD, returnTo: path }))
        .status,
      303,
    );
    const page = await browser.request(path);
    const fields = formFields(await page.text(), `${path}/accept`);
    const accepted = await browser.postForm(`${path}/accept`, fields);
    assert.equal(accepted.status, 303);
    assert.equal(locationOf(accepted), '/account');
    const user = await findUserByEmail(t.runtime.db, 'other-lecturer@example.com');
    assert.deepEqual((await findMembership(t.runtime.db, ids.schoolId, user!.id))!.roles, ['lecturer']);
  });

  it('a refused email is a 502 mail_failed problem, and the invitation can be resent', async () => {
    const broken = await createLoggedTestApp({ SMTP_URL: smtp.url.replace('smtp-secret', 'wrong') });
    try {
      const brokenIds = await seedDemo(broken);
      const call = await operator(broken, brokenIds.ownerId, brokenIds.schoolId);
      const r = await call('POST', '/api/v1/members', { email: 'unlucky@example.com', roles: ['student'] });
      assert.equal(r.status, 502);
      assert.equal(r.headers.get('content-type'), 'application/problem+json');
      assert.equal(r.body.code, 'mail_failed');
      const list = await call('GET', '/api/v1/invitations?status=pending&search=unlucky');
      assert.equal(list.body.data.length, 1);
    } finally {
      await broken.close();
    }
  });
});
