import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../../src/crypto/tokens.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { bearerChallenge } from '../../src/resource/challenge.ts';
import { type ProtectedEnv, requireBearer } from '../../src/resource/middleware.ts';
import { createBearerVerifier } from '../../src/resource/verifier.ts';
import { type Db, openDatabase } from '../../src/store/database.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { ENGINE } from '../support/database.ts';
import { issueTestToken } from '../support/tokens.ts';

const RM = 'resource_metadata="http://lectern.test/.well-known/oauth-protected-resource"';

describe('bearer verification (RFC 6750, RFC 8707, product.md §6)', () => {
  let t: TestApp;
  let userId: string;
  let schoolId: string;
  before(async () => {
    t = await createTestApp();
    const db = t.runtime.db;
    const school = await createSchool(db, { name: 'S', subdomain: 's' });
    const user = await createUser(db, { email: 'u@example.com', name: 'U', passwordHash: null });
    await addRoles(db, school.id, user.id, ['owner']);
    userId = user.id;
    schoolId = school.id;
    const guarded = t.app as unknown as import('hono').Hono<ProtectedEnv>;
    guarded.get(
      '/_test/protected',
      requireBearer(t.runtime, {
        challengeScopes: ['openid', 'courses:read'],
        need: { scopes: ['courses:read'] },
      }),
      (c) => {
        const p = c.get('principal');
        return c.json({ userId: p.userId, schoolId: p.schoolId, roles: p.roles, scopes: [...p.scopes] });
      },
    );
  });
  after(() => t.close());

  const call = (authorization?: string) =>
    t.request('/_test/protected', { headers: authorization ? { Authorization: authorization } : {} });

  /**
   * Another admin of the school, whose operator token works until `change` (given their user id)
   * touches their membership; then the token is refused as the user's no longer belonging there.
   */
  async function assertStandingLost(
    email: string,
    name: string,
    change: (userId: string) => Promise<unknown>,
  ) {
    const other = await createUser(t.runtime.db, { email, name, passwordHash: null });
    await addRoles(t.runtime.db, schoolId, other.id, ['admin']);
    const { token } = await issueTestToken(t, {
      userId: other.id,
      schoolId,
      scopes: ['courses:read'],
      audience: 'operator',
    });
    assert.equal((await call(`Bearer ${token}`)).status, 200);
    await change(other.id);
    const res = await call(`Bearer ${token}`);
    assert.equal(res.status, 401);
    assert.equal((await res.json()).error_description, 'The user no longer belongs to this school.');
  }

  it('no token: 401 with resource_metadata and the default scopes, no error code (RFC 6750 §3.1)', async () => {
    const res = await call();
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), `Bearer ${RM}, scope="openid courses:read"`);
    assert.deepEqual(await res.json(), {
      error: 'invalid_token',
      error_description: 'No access token was presented.',
    });
  });

  it('a malformed header or another scheme is invalid_token', async () => {
    for (const h of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b', 'Bearer ä']) {
      const res = await call(h);
      assert.equal(res.status, 401, h);
      assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    }
  });

  it('an unknown token is invalid_token with error in the challenge', async () => {
    const res = await call('Bearer not-a-real-token');
    assert.equal(res.status, 401);
    assert.equal(
      res.headers.get('www-authenticate'),
      `Bearer ${RM}, error="invalid_token", error_description="The access token is not valid.", scope="openid courses:read"`,
    );
  });

  it('a valid token with the scope reaches the handler with its principal; the scheme is case-insensitive', async () => {
    const { token } = await issueTestToken(t, {
      userId,
      schoolId,
      scopes: ['courses:read'],
      audience: 'operator',
    });
    const res = await call(`bearer ${token}`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { userId, schoolId, roles: ['owner'], scopes: ['courses:read'] });
  });

  it('courses:write implies courses:read (product.md §4)', async () => {
    const { token } = await issueTestToken(t, {
      userId,
      schoolId,
      scopes: ['courses:write'],
      audience: 'operator',
    });
    assert.equal((await call(`Bearer ${token}`)).status, 200);
  });

  it('missing scope: 403 insufficient_scope naming the scope (RFC 6750 §3.1)', async () => {
    const { token } = await issueTestToken(t, {
      userId,
      schoolId,
      scopes: ['orders:read'],
      audience: 'operator',
    });
    const res = await call(`Bearer ${token}`);
    assert.equal(res.status, 403);
    assert.equal(
      res.headers.get('www-authenticate'),
      `Bearer ${RM}, error="insufficient_scope", error_description="This request needs the courses:read scope.", scope="courses:read"`,
    );
    assert.equal((await res.json()).error, 'insufficient_scope');
  });

  it('an expired token is refused', async () => {
    const { token } = await issueTestToken(t, {
      userId,
      schoolId,
      scopes: ['courses:read'],
      audience: 'operator',
      expiresInSeconds: -1,
    });
    const res = await call(`Bearer ${token}`);
    assert.equal(res.status, 401);
    assert.equal((await res.json()).error_description, 'The access token has expired.');
  });

  it('a token bound to another resource is refused (RFC 8707 §2, spec §5.5)', async () => {
    const { token } = await issueTestToken(t, {
      userId,
      schoolId,
      scopes: ['courses:read'],
      audience: 'operator',
      resource: 'https://other.example',
    });
    const res = await call(`Bearer ${token}`);
    assert.equal(res.status, 401);
    assert.equal(
      (await res.json()).error_description,
      'The access token was issued for a different resource.',
    );
  });

  it('revoking the token or its grant takes effect on the next request', async () => {
    const a = await issueTestToken(t, { userId, schoolId, scopes: ['courses:read'], audience: 'operator' });
    assert.equal((await call(`Bearer ${a.token}`)).status, 200);
    await t.runtime.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: new Date().toISOString() })
      .where('token_hash', '=', sha256(a.token))
      .execute();
    assert.equal((await call(`Bearer ${a.token}`)).status, 401);

    const b = await issueTestToken(t, { userId, schoolId, scopes: ['courses:read'], audience: 'operator' });
    assert.equal((await call(`Bearer ${b.token}`)).status, 200);
    await t.runtime.db
      .updateTable('oauth_grants')
      .set({ revoked_at: new Date().toISOString() })
      .where('id', '=', b.grantId)
      .execute();
    assert.equal((await call(`Bearer ${b.token}`)).status, 401);
  });

  it('a user removed from the school loses access', async () => {
    await assertStandingLost('gone@example.com', 'G', (userId) =>
      t.runtime.db.deleteFrom('memberships').where('user_id', '=', userId).execute(),
    );
  });

  it('a membership that is not active gives no standing (domain/school/standing.ts)', async () => {
    await assertStandingLost('paused@example.com', 'P', (userId) =>
      t.runtime.db
        .updateTable('memberships')
        .set({ status: 'invited' })
        .where('user_id', '=', userId)
        .execute(),
    );
  });
});

describe('bearer verification with a second instance on the same database (product.md §5)', () => {
  let t: TestApp;
  let userId: string;
  let schoolId: string;
  let otherInstance: Db;
  before(async () => {
    t = await createTestApp();
    const school = await createSchool(t.runtime.db, { name: 'S', subdomain: 's' });
    const user = await createUser(t.runtime.db, { email: 'u@example.com', name: 'U', passwordHash: null });
    await addRoles(t.runtime.db, school.id, user.id, ['owner']);
    userId = user.id;
    schoolId = school.id;
    // What another `lectern serve` (or a CLI command) on the same database writes through.
    otherInstance = openDatabase(t.database.options);
  });
  after(async () => {
    await otherInstance.destroy();
    await t.close();
  });

  const issue = (holder = userId, expiresInSeconds?: number) =>
    issueTestToken(t, {
      userId: holder,
      schoolId,
      scopes: ['courses:read'],
      audience: 'operator',
      expiresInSeconds,
    });

  it('a token revoked by another instance fails on its next use here, however often it was used', async () => {
    const verifier = createBearerVerifier(t.runtime);
    const { token } = await issue();
    for (let i = 0; i < 3; i++) assert.equal((await verifier.verify(`Bearer ${token}`)).ok, true);
    await otherInstance
      .updateTable('oauth_tokens')
      .set({ revoked_at: new Date().toISOString() })
      .where('token_hash', '=', sha256(token))
      .execute();
    const result = await verifier.verify(`Bearer ${token}`);
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.description, 'The access token has been revoked.');
  });

  it('a membership removed by another instance ends access on the next request', async () => {
    const verifier = createBearerVerifier(t.runtime);
    const other = await createUser(t.runtime.db, { email: 'o@example.com', name: 'O', passwordHash: null });
    await addRoles(t.runtime.db, schoolId, other.id, ['admin']);
    const { token } = await issue(other.id);
    assert.equal((await verifier.verify(`Bearer ${token}`)).ok, true);
    await otherInstance.deleteFrom('memberships').where('user_id', '=', other.id).execute();
    const result = await verifier.verify(`Bearer ${token}`);
    assert.equal(!result.ok && result.description, 'The user no longer belongs to this school.');
  });

  it('a token verified a moment ago still expires on time', async () => {
    let now = Date.now();
    const verifier = createBearerVerifier(t.runtime, () => now);
    const { token } = await issue(userId, 60);
    assert.equal((await verifier.verify(`Bearer ${token}`)).ok, true);
    now += 61_000;
    const result = await verifier.verify(`Bearer ${token}`);
    assert.equal(!result.ok && result.description, 'The access token has expired.');
  });

  it('on SQLite a repeated token is not looked up again until the database changes', async () => {
    const verifier = createBearerVerifier(t.runtime);
    const { token } = await issue();
    let count = 0;
    const db = t.runtime.db;
    const execute = db.executeQuery.bind(db);
    db.executeQuery = ((query, queryId) => {
      if ('sql' in query && query.sql.includes('from "oauth_tokens" as "t"')) count++;
      return execute(query, queryId);
    }) as typeof db.executeQuery;
    const lookups = () => count;
    assert.equal((await verifier.verify(`Bearer ${token}`)).ok, true);
    const before = lookups();
    for (let i = 0; i < 5; i++) assert.equal((await verifier.verify(`Bearer ${token}`)).ok, true);
    // PostgreSQL has no cross-instance change signal, so there every request reads the store.
    assert.equal(lookups() - before, ENGINE === 'sqlite' ? 0 : 5);
    await t.runtime.db.updateTable('schools').set({ name: 'S2' }).where('id', '=', schoolId).execute();
    assert.equal((await verifier.verify(`Bearer ${token}`)).ok, true);
    assert.equal(lookups() - before, ENGINE === 'sqlite' ? 1 : 6);
  });
});

describe('bearerChallenge (RFC 6750 §3)', () => {
  it('keeps error_description within its charset: no double quote, backslash or non-ASCII', () => {
    assert.equal(
      bearerChallenge('https://x.example/.well-known/oauth-protected-resource', {
        error: 'insufficient_scope',
        description: 'Needs "a\\b" — café',
        scope: ['a'],
      }),
      `Bearer resource_metadata="https://x.example/.well-known/oauth-protected-resource", error="insufficient_scope", error_description="Needs 'a'b'  caf", scope="a"`,
    );
  });
});
