import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../../src/crypto/tokens.ts';
import { SESSION_COOKIE, SESSION_IDLE_SECONDS } from '../../src/http/sessions.ts';
import { CODE_LIFETIME_SECONDS, issueCode } from '../../src/oauth/authorize/codes.ts';
import { PURGE_GRACE_SECONDS, purgeExpired } from '../../src/oauth/grants/housekeeping.ts';
import { isoNow } from '../../src/store/time.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { Browser, signIn } from '../support/oauth-flow.ts';
import { issueTestToken } from '../support/tokens.ts';
import { createWorld, type World } from '../support/world.ts';

describe('housekeeping: long-expired codes, tokens and sessions are deleted', () => {
  let t: TestApp;
  let world: World;
  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
  });
  after(() => t.close());

  it('deletes only rows expired for longer than the grace period', async () => {
    const db = t.runtime.db;
    const user = { id: world.demo.studentId };
    const school = { id: world.demo.schoolId };
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
    // Codes and sessions are made by the real functions, the expired ones that long ago.
    const code = async () => ({
      code_hash: sha256(
        await issueCode(db, {
          grantId: live.grantId,
          clientId: live.clientId,
          redirectUri: 'http://127.0.0.1/callback',
          codeChallenge: 'x',
          scopes: ['account:read'],
          resource: t.config.baseUrl,
          nonce: null,
          authTime: isoNow(),
        }),
      ),
    });
    const keptCode = await code();
    await t.clock.travel(-(PURGE_GRACE_SECONDS + 60 + CODE_LIFETIME_SECONDS) * 1000, code);
    const sessionOf = (browser: Browser) => ({ id_hash: sha256(browser.cookies.get(SESSION_COOKIE)!) });
    const keptBrowser = new Browser(t);
    await signIn(keptBrowser, 'student@example.com');
    const keptSession = sessionOf(keptBrowser);
    // Signed in a moment more than the idle lifetime ago, and not used since.
    await t.clock.travel(-(SESSION_IDLE_SECONDS + 1) * 1000, () =>
      signIn(new Browser(t), 'student@example.com'),
    );

    assert.deepEqual(await purgeExpired(db), {
      codes: 1,
      tokens: 1,
      sessions: 1,
      passwordResets: 0,
      rotationAnswers: 0,
    });

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
    assert.deepEqual(await purgeExpired(db), {
      codes: 0,
      tokens: 0,
      sessions: 0,
      passwordResets: 0,
      rotationAnswers: 0,
    });
  });
});
