import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import { randomToken, sha256 } from '../../src/crypto/tokens.ts';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { PURGE_GRACE_SECONDS, purgeExpired } from '../../src/oauth/housekeeping.ts';
import { isoIn, isoNow } from '../../src/store/time.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { issueTestToken } from '../support/tokens.ts';

describe('housekeeping: long-expired codes, tokens and sessions are deleted', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await seedDemoData(t.runtime.db);
  });
  after(() => t.close());

  it('deletes only rows expired for longer than the grace period', async () => {
    const db = t.runtime.db;
    const user = await db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'student@example.com')
      .executeTakeFirstOrThrow();
    const school = await db
      .selectFrom('schools')
      .select('id')
      .where('subdomain', '=', 'demo')
      .executeTakeFirstOrThrow();
    const live = await issueTestToken(t, {
      userId: user.id,
      schoolId: school.id,
      scopes: ['account:read'],
      audience: 'member',
    });
    const recent = await issueTestToken(t, {
      userId: user.id,
      schoolId: school.id,
      scopes: ['account:read'],
      audience: 'member',
      expiresInSeconds: -60, // expired, but within the grace period: kept for reuse detection
    });
    const old = await issueTestToken(t, {
      userId: user.id,
      schoolId: school.id,
      scopes: ['account:read'],
      audience: 'member',
      expiresInSeconds: -PURGE_GRACE_SECONDS - 60,
    });
    const now = isoNow();
    const code = (expires: string) => ({
      code_hash: sha256(randomToken()),
      grant_id: live.grantId,
      client_id: live.clientId,
      redirect_uri: 'http://127.0.0.1/callback',
      code_challenge: 'x',
      scopes: 'account:read',
      resource: t.config.baseUrl,
      nonce: null,
      auth_time: now,
      expires_at: expires,
      used_at: null,
      created_at: now,
    });
    const keptCode = code(isoIn(60));
    const oldCode = code(isoIn(-PURGE_GRACE_SECONDS - 60));
    await db.insertInto('oauth_codes').values([keptCode, oldCode]).execute();
    const session = (expires: string) => ({
      id_hash: sha256(newId('ses')),
      user_id: user.id,
      csrf_secret: 'x',
      auth_time: now,
      created_at: now,
      last_seen_at: now,
      expires_at: expires,
    });
    const keptSession = session(isoIn(3600));
    await db
      .insertInto('sessions')
      .values([keptSession, session(isoIn(-1))])
      .execute();

    assert.deepEqual(await purgeExpired(db), { codes: 1, tokens: 1, sessions: 1, passwordResets: 0 });

    const tokens = await db.selectFrom('oauth_tokens').select('token_hash').execute();
    const hashes = new Set(tokens.map((r) => r.token_hash));
    assert.ok(hashes.has(sha256(live.token)));
    assert.ok(hashes.has(sha256(recent.token)));
    assert.ok(!hashes.has(sha256(old.token)));
    const codes = await db.selectFrom('oauth_codes').select('code_hash').execute();
    assert.deepEqual(
      codes.map((r) => r.code_hash),
      [keptCode.code_hash],
    );
    const sessions = await db.selectFrom('sessions').select('id_hash').execute();
    assert.deepEqual(
      sessions.map((r) => r.id_hash),
      [keptSession.id_hash],
    );
    // The live token still works.
    const res = await t.request('/account/graphql', {
      method: 'POST',
      headers: { Authorization: `Bearer ${live.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { email } }' }),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await purgeExpired(db), { codes: 0, tokens: 0, sessions: 0, passwordResets: 0 });
  });
});
