import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../../src/crypto/tokens.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { SECOND } from '../support/clock.ts';
import { obtainTokens, registerLoopbackClient, tokenRequest } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';

/**
 * The reuse grace of refresh-token rotation (token-refresh.ts): the replaced token presented
 * again shortly after its rotation — an answer lost on the way, processes of one client
 * refreshing at once — gets that rotation's answer again instead of revoking the grant, and the
 * chain never has more than one live refresh token. After the grace, reuse revokes as before.
 */

interface Answer {
  res: Response;
  body: Record<string, unknown> & { access_token: string; refresh_token: string; expires_in: number };
}

function suite(t: () => TestApp) {
  let client: string;
  let other: string;

  before(async () => {
    await createWorld(t());
    client = (await registerLoopbackClient(t())).client_id;
    other = (await registerLoopbackClient(t(), { name: 'Other CLI' })).client_id;
  });

  const graceMs = () => t().config.refreshReuseGraceSeconds * SECOND;

  const signIn = () => obtainTokens(t(), { clientId: client, scopes: ['openid'], user: 'owner@example.com' });

  async function refresh(refreshToken: string, clientId = client): Promise<Answer> {
    const res = await tokenRequest(t(), {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
    });
    return { res, body: await res.json() };
  }

  async function userinfo(accessToken: string): Promise<number> {
    const res = await t().request('/api/oauth/userinfo', {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    await res.arrayBuffer();
    return res.status;
  }

  async function grantOf(token: string): Promise<string> {
    const row = await t()
      .runtime.db.selectFrom('oauth_tokens')
      .select('grant_id')
      .where('token_hash', '=', sha256(token))
      .executeTakeFirstOrThrow();
    return row.grant_id;
  }

  /** The grant's refresh tokens that are neither rotated out nor revoked, by hash. */
  async function liveRefreshHashes(grantId: string): Promise<string[]> {
    const rows = await t()
      .runtime.db.selectFrom('oauth_tokens')
      .select('token_hash')
      .where('grant_id', '=', grantId)
      .where('kind', '=', 'refresh')
      .where('rotated_at', 'is', null)
      .where('revoked_at', 'is', null)
      .execute();
    return rows.map((r) => r.token_hash);
  }

  async function grantRow(grantId: string) {
    return t()
      .runtime.db.selectFrom('oauth_grants')
      .select(['revoked_at', 'rotation_answer'])
      .where('id', '=', grantId)
      .executeTakeFirstOrThrow();
  }

  function assertInvalidGrant(answer: Answer, description: RegExp): void {
    assert.equal(answer.res.status, 400, JSON.stringify(answer.body));
    assert.equal(answer.body.error, 'invalid_grant');
    assert.match(String(answer.body.error_description), description);
  }

  it('(a) 12 concurrent refreshes with one refresh token all succeed with the same pair; one live refresh token, the grant stays', async () => {
    const first = await signIn();
    const grantId = await grantOf(first.refresh_token);
    const answers = await Promise.all(Array.from({ length: 12 }, () => refresh(first.refresh_token)));
    assert.deepEqual(
      answers.map((a) => a.res.status),
      answers.map(() => 200),
      answers.map((a) => JSON.stringify(a.body)).join('\n'),
    );
    const refreshTokens = new Set(answers.map((a) => a.body.refresh_token));
    const accessTokens = new Set(answers.map((a) => a.body.access_token));
    assert.equal(refreshTokens.size, 1, 'every caller holds the same refresh token');
    assert.equal(accessTokens.size, 1, 'and the same access token');
    const [successor] = refreshTokens;
    assert.notEqual(successor, first.refresh_token);

    // One rotation, never more: the first pair and the one that replaced it.
    const issued = await t()
      .runtime.db.selectFrom('oauth_tokens')
      .select('kind')
      .where('grant_id', '=', grantId)
      .execute();
    assert.equal(issued.length, 4);
    assert.deepEqual(await liveRefreshHashes(grantId), [sha256(successor)]);
    assert.equal((await grantRow(grantId)).revoked_at, null, 'the grant is not revoked');

    assert.equal(await userinfo(answers[0].body.access_token), 200);
    const next = await refresh(successor);
    assert.equal(next.res.status, 200, JSON.stringify(next.body));
    assert.deepEqual(await liveRefreshHashes(grantId), [sha256(next.body.refresh_token)]);
  });

  it('(b) a lost answer: the old token again within the grace gets the same pair, which stays the one live branch', async () => {
    const first = await signIn();
    const grantId = await grantOf(first.refresh_token);
    const lost = await refresh(first.refresh_token); // the answer never reaches the client
    assert.equal(lost.res.status, 200);

    const again = await t().clock.travel(graceMs() / 2, () => refresh(first.refresh_token));
    assert.equal(again.res.status, 200, JSON.stringify(again.body));
    // The decision asserted: the same successor pair, not a fresh one.
    assert.equal(again.body.refresh_token, lost.body.refresh_token);
    assert.equal(again.body.access_token, lost.body.access_token);
    assert.equal(again.body.scope, lost.body.scope);
    assert.equal(again.body.token_type, 'Bearer');
    assert.equal(again.res.headers.get('cache-control'), 'no-store');
    const elapsed = graceMs() / 2 / SECOND;
    assert.ok(
      again.body.expires_in <= lost.body.expires_in - elapsed + 1 &&
        again.body.expires_in >= lost.body.expires_in - elapsed - 5,
      `expires_in counts down: ${lost.body.expires_in} then ${again.body.expires_in}`,
    );
    assert.deepEqual(await liveRefreshHashes(grantId), [sha256(lost.body.refresh_token)]);

    // The kept answer is sealed: the database never holds the tokens in the clear.
    const { rotation_answer } = await grantRow(grantId);
    assert.ok(rotation_answer);
    assert.ok(
      !rotation_answer.includes(lost.body.refresh_token) && !rotation_answer.includes(lost.body.access_token),
    );

    // The pair works: its access token at UserInfo, its refresh token for the next rotation.
    assert.equal(await userinfo(again.body.access_token), 200);
    const next = await refresh(again.body.refresh_token);
    assert.equal(next.res.status, 200, JSON.stringify(next.body));
    assert.notEqual(next.body.refresh_token, again.body.refresh_token);
    assert.equal(await userinfo(next.body.access_token), 200);
    assert.equal((await grantRow(grantId)).revoked_at, null);
  });

  it('(c) RFC 9700 §4.14.2: a replay after the grace is reuse → invalid_grant and the whole grant revoked', async () => {
    const first = await signIn();
    const grantId = await grantOf(first.refresh_token);
    const r1 = await refresh(first.refresh_token);
    assert.equal(r1.res.status, 200);

    const replay = await t().clock.travel(graceMs() + SECOND, () => refresh(first.refresh_token));
    assertInvalidGrant(replay, /already used/);
    assert.ok((await grantRow(grantId)).revoked_at, 'the grant is revoked');
    assert.equal((await grantRow(grantId)).rotation_answer, null, 'and its kept answer dropped');
    assert.equal(await userinfo(r1.body.access_token), 401, 'access tokens of the grant fail');
    assert.equal(await userinfo(first.access_token), 401);
    assertInvalidGrant(await refresh(r1.body.refresh_token), /revoked/);
    // Within what would have been the grace, the revoked grant answers nothing either.
    assertInvalidGrant(await refresh(first.refresh_token), /./);
  });

  it('only the latest rotation is kept: a token two rotations back is reuse even within the grace (RFC 9700 §4.14.2)', async () => {
    const first = await signIn();
    const grantId = await grantOf(first.refresh_token);
    const r1 = await refresh(first.refresh_token);
    const r2 = await refresh(r1.body.refresh_token);
    assert.equal(r2.res.status, 200);
    assertInvalidGrant(await refresh(first.refresh_token), /already used/);
    assert.ok((await grantRow(grantId)).revoked_at);
    assert.equal(await userinfo(r2.body.access_token), 401);
  });

  it('a replay within the grace is refused as any refresh is: another client, a revoked grant', async () => {
    const first = await signIn();
    const grantId = await grantOf(first.refresh_token);
    const r1 = await refresh(first.refresh_token);
    assert.equal(r1.res.status, 200);

    // RFC 6749 §6: the token is bound to its client; another client learns nothing, revokes nothing.
    assertInvalidGrant(await refresh(first.refresh_token, other), /another client/);
    assert.equal((await grantRow(grantId)).revoked_at, null);
    assert.equal(await userinfo(r1.body.access_token), 200);

    // Revoked (RFC 7009): the kept answer is not given again.
    const revoke = await t().request('/api/oauth/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: r1.body.refresh_token, client_id: client }).toString(),
    });
    assert.equal(revoke.status, 200);
    assertInvalidGrant(await refresh(first.refresh_token), /revoked/);
    assert.equal((await grantRow(grantId)).rotation_answer, null);
  });
}

describe('refresh-token reuse grace (default)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());
  suite(() => t);

  it('the default grace is 60 seconds', () => {
    assert.equal(t.config.refreshReuseGraceSeconds, 60);
  });
});

describe('refresh-token reuse grace off (REFRESH_REUSE_GRACE_SECONDS=0)', () => {
  let t: TestApp;
  let client: string;
  before(async () => {
    t = await createTestApp({ REFRESH_REUSE_GRACE_SECONDS: '0' });
    await createWorld(t);
    client = (await registerLoopbackClient(t)).client_id;
  });
  after(() => t.close());

  it('an immediate replay is reuse and revokes the grant (RFC 9700 §4.14.2)', async () => {
    const first = await obtainTokens(t, { clientId: client, scopes: ['openid'], user: 'owner@example.com' });
    const fields = { grant_type: 'refresh_token', client_id: client };
    const r1 = await tokenRequest(t, { ...fields, refresh_token: first.refresh_token });
    assert.equal(r1.status, 200);
    const { access_token } = await r1.json();
    const replay = await tokenRequest(t, { ...fields, refresh_token: first.refresh_token });
    assert.equal(replay.status, 400);
    assert.match((await replay.json()).error_description, /already used/);
    const info = await t.request('/api/oauth/userinfo', {
      headers: { authorization: `Bearer ${access_token}` },
    });
    assert.equal(info.status, 401);
  });
});
