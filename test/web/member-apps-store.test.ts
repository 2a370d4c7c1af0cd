/** Contract tests of the member-app and connected-app storage, run on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../../src/crypto/tokens.ts';
import {
  createMemberApp,
  deleteMemberApp,
  getMemberApp,
  listMemberApps,
  MAX_APPS_PER_SCHOOL,
  MEMBER_APP_SCOPES,
  rotateMemberAppSecret,
  TooManyAppsError,
  updateMemberApp,
  validateMemberAppInput,
} from '../../src/oauth/clients/member-apps.ts';
import {
  listSchoolConnections,
  listUserConnections,
  revokeOwnConnection,
  revokeSchoolConnection,
} from '../../src/oauth/grants/connected-apps.ts';
import { createGrant, findGrant } from '../../src/oauth/grants/grants.ts';
import { issueTokens } from '../../src/oauth/grants/tokens.ts';
import type { Db } from '../../src/store/database.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { createWorld } from '../support/world.ts';

const input = {
  name: 'App',
  redirectUris: ['http://127.0.0.1/cb'],
  authMethod: 'none' as const,
  scopes: ['openid'],
};

describe('member apps and connections: storage contract', () => {
  let t: TestApp;
  let db: Db;
  let demo: string;
  let other: string;
  let owner: string;
  let student: string;

  before(async () => {
    t = await createTestApp();
    db = t.runtime.db;
    const world = await createWorld(t);
    demo = world.demo.schoolId;
    other = world.other.schoolId;
    owner = world.demo.ownerId;
    student = world.demo.studentId;
  });
  after(() => t.close());

  /** A grant with live tokens, as a completed authorization leaves it. */
  async function connect(clientId: string, userId: string, schoolId: string, scopes: string[]) {
    const grant = await createGrant(db, {
      clientId,
      userId,
      schoolId,
      audience: 'member',
      scopes,
      resource: TEST_BASE_URL,
      authTime: new Date().toISOString(),
    });
    const tokens = await issueTokens(db, grant, scopes);
    return { grant, tokens };
  }

  it('member-app scopes are the catalogue’s identity and member scopes, never operator ones', () => {
    assert.deepEqual(MEMBER_APP_SCOPES, ['openid', 'profile', 'email', 'account:read', 'account:write']);
  });

  it('validation trims, deduplicates, orders scopes canonically and names each bad field', () => {
    const ok = validateMemberAppInput({
      name: '  Planner ',
      redirectUris: ' https://a.example/cb \n\nhttps://a.example/cb\r\nhttp://[::1]:9000/x',
      authMethod: 'client_secret_post',
      scopes: ['account:read', 'openid', 'openid'],
    });
    assert.deepEqual(ok, {
      ok: true,
      value: {
        name: 'Planner',
        redirectUris: ['https://a.example/cb', 'http://[::1]:9000/x'],
        authMethod: 'client_secret_post',
        scopes: ['openid', 'account:read'],
      },
    });
    const bad = validateMemberAppInput({
      name: 'x'.repeat(81),
      redirectUris: 'javascript:alert(1)',
      authMethod: 'private_key_jwt',
      scopes: [],
    });
    assert.equal(bad.ok, false);
    assert.deepEqual(Object.keys(bad.ok ? {} : bad.errors).sort(), [
      'auth_method',
      'name',
      'redirect_uris',
      'scopes',
    ]);
    const control = validateMemberAppInput({
      ...input,
      name: 'a\u0007b',
      redirectUris: 'http://127.0.0.1/cb',
      scopes: ['openid'],
    });
    assert.equal(control.ok, false);
  });

  it('every function is scoped by school: another school’s id finds, changes and deletes nothing', async () => {
    const { app, clientSecret } = await createMemberApp(db, {
      ...input,
      authMethod: 'client_secret_post',
      schoolId: demo,
      createdByUserId: owner,
    });
    assert.ok(clientSecret);
    assert.equal(await getMemberApp(db, other, app.clientId), undefined);
    assert.ok(!(await listMemberApps(db, other)).some((a) => a.clientId === app.clientId));
    assert.equal(await updateMemberApp(db, other, app.clientId, { ...input, name: 'Hijack' }), undefined);
    assert.equal(await rotateMemberAppSecret(db, other, app.clientId, 3600), undefined);
    assert.equal(await deleteMemberApp(db, other, app.clientId), false);
    const still = await getMemberApp(db, demo, app.clientId);
    assert.equal(still?.name, 'App');
    const row = await db
      .selectFrom('oauth_clients')
      .select('secret_hash')
      .where('id', '=', app.clientId)
      .executeTakeFirst();
    assert.equal(row?.secret_hash, sha256(clientSecret));
    // Clients of other kinds are not member apps, whatever the school.
    assert.equal(await getMemberApp(db, demo, 'claude'), undefined);
  });

  it('a public app has no secret to rotate', async () => {
    const { app, clientSecret } = await createMemberApp(db, {
      ...input,
      schoolId: demo,
      createdByUserId: owner,
    });
    assert.equal(clientSecret, undefined);
    assert.equal(await rotateMemberAppSecret(db, demo, app.clientId, 3600), undefined);
  });

  it(`a school holds at most ${MAX_APPS_PER_SCHOOL} member apps`, async () => {
    const have = (await listMemberApps(db, other)).length;
    for (let i = have; i < MAX_APPS_PER_SCHOOL; i++) {
      await createMemberApp(db, { ...input, name: `App ${i}`, schoolId: other, createdByUserId: owner });
    }
    await assert.rejects(
      createMemberApp(db, { ...input, schoolId: other, createdByUserId: owner }),
      TooManyAppsError,
    );
    assert.equal((await listMemberApps(db, other)).length, MAX_APPS_PER_SCHOOL);
  });

  it('connections group a client’s grants per person and school, and revoke together', async () => {
    const { app } = await createMemberApp(db, {
      ...input,
      scopes: ['openid', 'email', 'account:read'],
      schoolId: demo,
      createdByUserId: owner,
    });
    const first = await connect(app.clientId, student, demo, ['openid', 'account:read']);
    const second = await connect(app.clientId, student, demo, ['openid', 'email']);
    const owners = await connect(app.clientId, owner, demo, ['openid']);
    // A grant whose code was never exchanged has no tokens: not a connection.
    await createGrant(db, {
      clientId: app.clientId,
      userId: student,
      schoolId: demo,
      audience: 'member',
      scopes: ['openid'],
      resource: TEST_BASE_URL,
      authTime: new Date().toISOString(),
    });

    const mine = (await listUserConnections(db, student)).filter((c) => c.clientId === app.clientId);
    assert.equal(mine.length, 1);
    // Any of its grants names the connection (ids made in the same millisecond sort randomly).
    assert.ok([first.grant.id, second.grant.id].includes(mine[0].key));
    assert.deepEqual(mine[0].scopes, ['openid', 'email', 'account:read']);
    assert.equal(mine[0].userEmail, 'student@example.com');
    assert.equal(mine[0].schoolName, 'Demo Academy');
    const school = (await listSchoolConnections(db, demo)).filter((c) => c.clientId === app.clientId);
    assert.deepEqual(school.map((c) => c.userEmail).sort(), ['owner@example.com', 'student@example.com']);
    assert.equal(
      (await listSchoolConnections(db, other)).filter((c) => c.clientId === app.clientId).length,
      0,
    );

    // The student cannot revoke the owner's; the other school's operator cannot revoke either.
    assert.equal(await revokeOwnConnection(db, student, owners.grant.id), 0);
    assert.equal(await revokeSchoolConnection(db, other, first.grant.id), 0);
    assert.equal((await findGrant(db, owners.grant.id))?.revokedAt, null);

    // Both live grants, and the pending one too: its code can no longer be exchanged.
    assert.equal(await revokeOwnConnection(db, student, first.grant.id), 3);
    assert.ok((await findGrant(db, first.grant.id))?.revokedAt);
    assert.ok((await findGrant(db, second.grant.id))?.revokedAt);
    const revokedTokens = await db
      .selectFrom('oauth_tokens')
      .select('revoked_at')
      .where('grant_id', 'in', [first.grant.id, second.grant.id])
      .execute();
    assert.ok(revokedTokens.length === 4 && revokedTokens.every((r) => r.revoked_at !== null));
    assert.equal(
      (await listUserConnections(db, student)).filter((c) => c.clientId === app.clientId).length,
      0,
    );

    assert.equal(await revokeSchoolConnection(db, demo, owners.grant.id), 1);
    assert.equal(
      (await listSchoolConnections(db, demo)).filter((c) => c.clientId === app.clientId).length,
      0,
    );
  });

  it('deleting an app removes it with its grants and tokens', async () => {
    const { app } = await createMemberApp(db, { ...input, schoolId: demo, createdByUserId: owner });
    const { tokens } = await connect(app.clientId, student, demo, ['openid']);
    assert.equal(await deleteMemberApp(db, demo, app.clientId), true);
    assert.equal(await getMemberApp(db, demo, app.clientId), undefined);
    const left = await db
      .selectFrom('oauth_tokens')
      .select('token_hash')
      .where('token_hash', '=', sha256(tokens.accessToken))
      .executeTakeFirst();
    assert.equal(left, undefined);
  });
});
