/**
 * Sign-in locks seen and lifted by operators: the admin API (REST and its MCP tool)
 * and the /admin page, each confined to the operator's own school.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { ACCOUNT_FAILURE_LIMIT } from '../../src/web/login.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';
import { Browser, signIn } from '../support/oauth-flow.ts';
import { type OwnRedis, REDIS_SERVER_AVAILABLE, startOwnRedis } from '../support/redis-server.ts';
import { issueTestToken } from '../support/tokens.ts';
import { locationOf, signedIn, submit } from '../web/pages-support.ts';
import { api } from './api.ts';

type Call = ReturnType<typeof api>;

describe('locked members: list, read and unlock', () => {
  let t: LoggedTestApp;
  let demo: string;
  let other: string;
  let demoOwner: Call;
  let otherOwner: Call;
  let readOnly: Call;

  const tokenFor = async (email: string, schoolId: string, scopes = OPERATOR_SCOPES) => {
    const user = await findUserByEmail(t.runtime.db, email);
    return (await issueTestToken(t, { userId: user!.id, schoolId, scopes, audience: 'operator' })).token;
  };
  const lock = async (email: string) => {
    for (let i = 0; i < ACCOUNT_FAILURE_LIMIT; i++) {
      assert.equal((await signIn(new Browser(t), email, { password: 'wrong-password' })).status, 401);
    }
    assert.equal((await signIn(new Browser(t), email)).status, 429, `${email} is locked`);
  };
  const memberIdOf = async (call: Call, email: string) =>
    (await call('GET', `/api/v1/members?search=${encodeURIComponent(email)}`)).body.data[0].id as string;

  before(async () => {
    t = await createLoggedTestApp();
    await seedDemoData(t.runtime.db);
    demo = (await findSchoolBySubdomain(t.runtime.db, 'demo'))!.id;
    other = (await findSchoolBySubdomain(t.runtime.db, 'other'))!.id;
    demoOwner = api(t, await tokenFor('owner@example.com', demo));
    otherOwner = api(t, await tokenFor('other-owner@example.com', other));
    readOnly = api(t, await tokenFor('owner@example.com', demo, ['members:read']));
  });
  after(() => t.close());

  it('lists a locked member with when the lock ends, and reads one member’s lock', async () => {
    await lock('student@example.com');
    const before = t.clock.now();
    const list = await demoOwner('GET', '/api/v1/member-locks');
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 1);
    const [entry] = list.body.data;
    assert.equal(entry.email, 'student@example.com');
    assert.equal(entry.name, 'Sam Student');
    assert.equal(entry.locked, true);
    const until = Date.parse(entry.locked_until);
    assert.ok(until > before && until <= before + 15 * 60_000 + 1000, entry.locked_until);

    const one = await readOnly('GET', `/api/v1/members/${entry.member_id}/lock`);
    assert.equal(one.status, 200);
    assert.equal(one.body.locked, true);
    const owner = await memberIdOf(demoOwner, 'owner@example.com');
    assert.deepEqual((await demoOwner('GET', `/api/v1/members/${owner}/lock`)).body.locked_until, null);
  });

  it('another school’s operator neither sees, reads nor lifts the lock (404 as for an unknown id)', async () => {
    const memberId = await memberIdOf(demoOwner, 'student@example.com');
    assert.deepEqual((await otherOwner('GET', '/api/v1/member-locks')).body, { data: [] });
    const read = await otherOwner('GET', `/api/v1/members/${memberId}/lock`);
    assert.equal(read.status, 404);
    assert.equal(read.headers.get('content-type'), 'application/problem+json');
    assert.equal(read.body.code, 'not_found');
    const unknown = await otherOwner('GET', '/api/v1/members/mem_unknown/lock');
    const { instance: _a, request_id: _b, ...unknownBody } = unknown.body;
    const { instance: _c, request_id: _d, ...readBody } = read.body;
    assert.deepEqual(unknownBody, readBody, 'the same answer as an id that exists nowhere');
    const unlock = await otherOwner('POST', `/api/v1/members/${memberId}/unlock`);
    assert.equal(unlock.status, 404);
    assert.equal(
      (await demoOwner('GET', `/api/v1/members/${memberId}/lock`)).body.locked,
      true,
      'still locked',
    );
  });

  it('members:read cannot unlock (RFC 6750 §3.1 insufficient_scope)', async () => {
    const memberId = await memberIdOf(demoOwner, 'student@example.com');
    const res = await readOnly('POST', `/api/v1/members/${memberId}/unlock`);
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'insufficient_scope');
  });

  it('unlocking lets the person sign in at once, is logged with who did it, and is idempotent', async () => {
    const memberId = await memberIdOf(demoOwner, 'student@example.com');
    const res = await demoOwner('POST', `/api/v1/members/${memberId}/unlock`);
    assert.equal(res.status, 200);
    assert.equal(res.body.locked, false);
    assert.equal(res.body.locked_until, null);
    assert.equal((await signIn(new Browser(t), 'student@example.com')).status, 303);
    assert.deepEqual((await demoOwner('GET', '/api/v1/member-locks')).body, { data: [] });
    const again = await demoOwner('POST', `/api/v1/members/${memberId}/unlock`);
    assert.equal(again.status, 200);
    const owner = await findUserByEmail(t.runtime.db, 'owner@example.com');
    const student = await findUserByEmail(t.runtime.db, 'student@example.com');
    const events = t.logs.filter((l) => l.event === 'account.unlocked');
    assert.equal(events.length, 2);
    assert.equal(events[0].schoolId, demo);
    assert.equal(events[0].userId, student!.id);
    assert.equal(events[0].actorUserId, owner!.id);
    assert.equal(events[0].wasLocked, true);
    assert.equal(events[1].wasLocked, false);
    assert.equal(events[0].level, 30, 'logged at info');
  });

  it('the MCP operator tool members_unlock does the same', async () => {
    await lock('lecturer@example.com');
    const memberId = await memberIdOf(demoOwner, 'lecturer@example.com');
    const token = await tokenFor('owner@example.com', demo);
    const res = await t.request('/mcp', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'members_unlock', arguments: { member_id: memberId } },
      }),
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    const body = JSON.parse(
      text.startsWith('{')
        ? text
        : text
            .split('\n')
            .find((l) => l.startsWith('data: '))!
            .slice(6),
    );
    assert.equal(body.result.isError ?? false, false, JSON.stringify(body));
    assert.equal(body.result.structuredContent.locked, false);
    assert.equal((await signIn(new Browser(t), 'lecturer@example.com')).status, 303);
  });

  describe('/admin/:school/locked', () => {
    it('lists the locked member with an Unlock button that works (POST-redirect-GET)', async () => {
      await lock('student@example.com');
      const owner = await signedIn(t, 'owner@example.com');
      const page = await owner.request(`/admin/${demo}/locked`);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /Sam Student/);
      assert.match(html, /aria-label="Unlock Sam Student"/);
      assert.match(html, /href="\/admin\/[^"]+\/locked" aria-current="page">Locked accounts/);
      const memberId = await memberIdOf(demoOwner, 'student@example.com');
      const res = await submit(owner, `/admin/${demo}/locked`, `/admin/${demo}/locked/unlock`, {
        member: memberId,
      });
      assert.equal(res.status, 303);
      assert.equal(locationOf(res), `/admin/${demo}/locked?done=unlocked`);
      const after = await (await owner.request(`/admin/${demo}/locked?done=unlocked`)).text();
      assert.match(after, /The account was unlocked/);
      assert.match(after, /Nobody at Demo Academy is locked out now/);
      assert.equal((await signIn(new Browser(t), 'student@example.com')).status, 303);
    });

    it('another school’s operator gets 403 for the page and 404 for the unlock; CSRF is required', async () => {
      await lock('student@example.com');
      const memberId = await memberIdOf(demoOwner, 'student@example.com');
      const stranger = await signedIn(t, 'other-owner@example.com');
      assert.equal((await stranger.request(`/admin/${demo}/locked`)).status, 403);
      const ownPage = await (await stranger.request(`/admin/${other}/locked`)).text();
      assert.doesNotMatch(ownPage, /Sam Student/);
      const res = await submit(stranger, `/admin/${other}/locked`, `/admin/${other}/locked/unlock`, {
        member: memberId,
      });
      assert.equal(res.status, 404);
      assert.match(await res.text(), /This school has no such member/);
      const crossPost = await submit(stranger, `/admin/${other}/locked`, `/admin/${demo}/locked/unlock`, {
        member: memberId,
      });
      assert.equal(crossPost.status, 403);
      const owner = await signedIn(t, 'owner@example.com');
      const forged = await owner.postForm(`/admin/${demo}/locked/unlock`, { member: memberId });
      assert.equal(forged.status, 403);
      assert.equal(
        (await demoOwner('GET', `/api/v1/members/${memberId}/lock`)).body.locked,
        true,
        'still locked',
      );
      const student = await signedIn(t, 'lecturer@example.com');
      assert.equal((await student.request(`/admin/${demo}/locked`)).status, 403, 'a lecturer is no operator');
    });
  });
});

describe('locks shared through Redis (several instances)', {
  skip: REDIS_SERVER_AVAILABLE ? undefined : 'redis-server is not installed',
}, () => {
  let redis: OwnRedis;
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    redis = await startOwnRedis();
    a = await createTestApp({ REDIS_URL: redis.url });
    b = await createTestApp({ REDIS_URL: redis.url });
    await seedDemoData(a.runtime.db);
    await seedDemoData(b.runtime.db);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    redis?.kill();
  });

  it('a lock made on one instance is listed and lifted on another', async () => {
    const email = 'other-lecturer@example.com';
    for (let i = 0; i < ACCOUNT_FAILURE_LIMIT; i++) {
      assert.equal((await signIn(new Browser(a), email, { password: 'wrong-password' })).status, 401);
    }
    assert.equal((await signIn(new Browser(a), email)).status, 429);
    const other = (await findSchoolBySubdomain(b.runtime.db, 'other'))!.id;
    const owner = await findUserByEmail(b.runtime.db, 'other-owner@example.com');
    const call = api(
      b,
      (
        await issueTestToken(b, {
          userId: owner!.id,
          schoolId: other,
          scopes: OPERATOR_SCOPES,
          audience: 'operator',
        })
      ).token,
    );
    const locks = await call('GET', '/api/v1/member-locks');
    assert.deepEqual(
      locks.body.data.map((l: { email: string }) => l.email),
      [email],
    );
    assert.equal((await call('POST', `/api/v1/members/${locks.body.data[0].member_id}/unlock`)).status, 200);
    assert.equal((await signIn(new Browser(a), email)).status, 303);
  });
});
