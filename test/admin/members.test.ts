import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { api } from './api.ts';

describe('admin API: members', () => {
  let t: TestApp;
  let s: SchoolFixture;
  let call: ReturnType<typeof api>;
  before(async () => {
    t = await createTestApp();
    s = await schoolFixture(t);
    call = api(t, await s.token());
  });
  after(() => t.close());

  const ownerMembership = async () => (await call('GET', '/api/v1/members?role=owner')).body.data[0];

  // Issue #16 changed this: inviting creates an invitation, not a password-less user and an
  // `invited` membership (test/admin/invitations.test.ts covers invitations in full).
  it('invites a new person with an invitation (no user, no membership), and refuses a second invite', async () => {
    const r = await call('POST', '/api/v1/members', {
      email: ' Ada@Example.com ',
      name: 'Ada',
      roles: ['admin'],
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.email, 'ada@example.com');
    assert.equal(r.body.status, 'pending');
    assert.deepEqual(r.body.roles, ['admin']);
    assert.equal(r.body.invited_by_user_id, s.ownerId);
    assert.equal(r.headers.get('location'), `http://lectern.test/api/v1/invitations/${r.body.id}`);
    const user = await t.runtime.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', 'ada@example.com')
      .executeTakeFirst();
    assert.equal(user, undefined);
    const again = await call('POST', '/api/v1/members', { email: 'ada@example.com', roles: ['student'] });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'invitation_pending');
    const ownerEmail = (await ownerMembership()).email;
    const member = await call('POST', '/api/v1/members', { email: ownerEmail, roles: ['student'] });
    assert.equal(member.status, 409);
    assert.equal(member.body.code, 'already_member');
    const bad = await call('POST', '/api/v1/members', { email: 'nope', roles: [] });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), [
      'body.email',
      'body.roles',
    ]);
  });

  it('lists with role, status and email/name search filters', async () => {
    const lee = await createUser(t.runtime.db, {
      email: 'lee@example.com',
      name: 'Lee Lecturer',
      passwordHash: null,
    });
    await addRoles(t.runtime.db, s.schoolId, lee.id, ['lecturer']);
    const lecturers = await call('GET', '/api/v1/members?role=lecturer');
    assert.deepEqual(
      lecturers.body.data.map((m: { email: string }) => m.email),
      ['lee@example.com'],
    );
    const search = await call('GET', '/api/v1/members?search=lecturer');
    assert.deepEqual(
      search.body.data.map((m: { email: string }) => m.email),
      ['lee@example.com'],
    );
    const invited = await call('GET', '/api/v1/members?status=invited&limit=100');
    assert.ok(invited.body.data.every((m: { status: string }) => m.status === 'invited'));
  });

  it('never removes or demotes the last owner (409 last_owner), but allows it once another owner exists', async () => {
    const owner = await ownerMembership();
    const demote = await call('PATCH', `/api/v1/members/${owner.id}`, { roles: ['admin'] });
    assert.equal(demote.status, 409);
    assert.equal(demote.body.code, 'last_owner');
    const remove = await call('DELETE', `/api/v1/members/${owner.id}`);
    assert.equal(remove.status, 409);
    assert.equal(remove.body.code, 'last_owner');
    // An invited owner does not count: they have not accepted yet.
    const invitedOwner = await call('POST', '/api/v1/members', {
      email: 'pending-owner@example.com',
      roles: ['owner'],
    });
    assert.equal((await call('DELETE', `/api/v1/members/${owner.id}`)).status, 409);
    const coOwnerId = await s.person(['owner']);
    const coOwner = (await call('GET', '/api/v1/members?role=owner&limit=100')).body.data.find(
      (m: { user_id: string }) => m.user_id === coOwnerId,
    );
    const ok = await call('PATCH', `/api/v1/members/${owner.id}`, { roles: ['admin', 'owner'] });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.roles, ['owner', 'admin']);
    const coCall = api(t, await s.token(undefined, 'operator', coOwnerId));
    assert.equal((await coCall('PATCH', `/api/v1/members/${owner.id}`, { roles: ['admin'] })).status, 200);
    assert.equal((await coCall('DELETE', `/api/v1/members/${coOwner.id}`)).status, 409);
    assert.equal(invitedOwner.status, 201);
    const revoked = await coCall('POST', `/api/v1/invitations/${invitedOwner.body.id}/revoke`);
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.status, 'revoked');
  });

  it('a removed member’s token stops working at once', async () => {
    const adminId = await s.person(['admin']);
    const adminToken = await s.token(undefined, 'operator', adminId);
    const adminCall = api(t, adminToken);
    assert.equal((await adminCall('GET', '/api/v1/courses')).status, 200);
    const member = (await call('GET', '/api/v1/members?role=admin&limit=100')).body.data.find(
      (m: { user_id: string }) => m.user_id === adminId,
    );
    assert.equal((await call('DELETE', `/api/v1/members/${member.id}`)).status, 204);
    const after = await adminCall('GET', '/api/v1/courses');
    assert.equal(after.status, 401);
    assert.equal(after.body.code, 'invalid_token');
  });

  it('a member demoted to student loses operator access (403 not_an_operator)', async () => {
    const adminId = await s.person(['admin']);
    const adminCall = api(t, await s.token(undefined, 'operator', adminId));
    const member = (await call('GET', '/api/v1/members?role=admin&limit=100')).body.data.find(
      (m: { user_id: string }) => m.user_id === adminId,
    );
    await call('PATCH', `/api/v1/members/${member.id}`, { roles: ['student'] });
    const r = await adminCall('GET', '/api/v1/courses');
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'not_an_operator');
  });

  it('only an owner may grant, change or remove the owner role (403 owner_required)', async () => {
    const adminId = await s.person(['admin']);
    const adminCall = api(t, await s.token(undefined, 'operator', adminId));
    const self = (await call('GET', '/api/v1/members?role=admin&limit=100')).body.data.find(
      (m: { user_id: string }) => m.user_id === adminId,
    );
    const promote = await adminCall('PATCH', `/api/v1/members/${self.id}`, { roles: ['owner'] });
    assert.equal(promote.status, 403);
    assert.equal(promote.body.code, 'owner_required');
    assert.equal(
      (await adminCall('POST', '/api/v1/members', { email: 'boss@example.com', roles: ['owner'] })).body.code,
      'owner_required',
    );
    const owner = await ownerMembership();
    assert.equal((await adminCall('DELETE', `/api/v1/members/${owner.id}`)).body.code, 'owner_required');
    assert.equal(
      (await adminCall('PATCH', `/api/v1/members/${owner.id}`, { roles: ['student'] })).body.code,
      'owner_required',
    );
    const invited = await adminCall('POST', '/api/v1/members', {
      email: 'helper@example.com',
      roles: ['lecturer'],
    });
    assert.equal(invited.status, 201);
    const helperId = await s.person(['lecturer']);
    const helper = (await call('GET', '/api/v1/members?role=lecturer&limit=100')).body.data.find(
      (m: { user_id: string }) => m.user_id === helperId,
    );
    assert.equal(
      (await adminCall('PATCH', `/api/v1/members/${helper.id}`, { roles: ['admin'] })).status,
      200,
    );
  });
});
