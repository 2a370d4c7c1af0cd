import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import { obtainCode, obtainTokens, registerLoopbackClient, tokenRequest } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';

const REDIRECT = 'http://127.0.0.1:43123/callback';

/**
 * Single use under concurrency (RFC 6749 §4.1.2, OAuth 2.1 §4.3.1): the conditional UPDATE in
 * the issuing transaction lets exactly one of many simultaneous requests win, on both engines.
 */
describe('concurrent redemption', () => {
  let t: TestApp;
  let client: string;
  before(async () => {
    t = await createTestApp();
    await createWorld(t);
    client = (await registerLoopbackClient(t)).client_id;
  });
  after(() => t.close());

  it('20 simultaneous redemptions of one code → exactly one 200, the rest invalid_grant', async () => {
    const { code, verifier } = await obtainCode(t, {
      clientId: client,
      scopes: ['openid'],
      user: 'owner@example.com',
    });
    const fields = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: client,
    };
    const responses = await Promise.all(Array.from({ length: 20 }, () => tokenRequest(t, fields)));
    const statuses = responses.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 400).length, 19, statuses.join(','));
    for (const r of responses.filter((r) => r.status === 400))
      assert.equal((await r.json()).error, 'invalid_grant');
    const issued = await t.runtime.db
      .selectFrom('oauth_tokens')
      .innerJoin('oauth_codes', 'oauth_codes.grant_id', 'oauth_tokens.grant_id')
      .select(['oauth_tokens.kind'])
      .where('oauth_codes.code_hash', '=', (await import('../../src/crypto/tokens.ts')).sha256(code))
      .execute();
    assert.equal(issued.length, 2, 'one access and one refresh token, never more');
    // The 19 others are second redemptions: they revoke what the winner got (RFC 6749 §4.1.2).
    const winner = await responses.find((r) => r.status === 200)!.json();
    const info = await t.request('/api/oauth/userinfo', {
      headers: { authorization: `Bearer ${winner.access_token}` },
    });
    assert.equal(info.status, 401);
  });

  it('20 simultaneous refreshes with one refresh token → exactly one rotation, its pair given to all 20', async () => {
    const first = await obtainTokens(t, { clientId: client, scopes: ['openid'], user: 'owner@example.com' });
    const fields = { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client };
    const responses = await Promise.all(Array.from({ length: 20 }, () => tokenRequest(t, fields)));
    const statuses = responses.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 20, statuses.join(','));
    // The losers of the conditional UPDATE are replays within the reuse grace: they get the
    // winner's answer, never a pair of their own (refresh-grace.test.ts).
    const pairs = new Set(
      await Promise.all(
        responses.map(async (r) => {
          const body = await r.json();
          return `${body.access_token} ${body.refresh_token}`;
        }),
      ),
    );
    assert.equal(pairs.size, 1, [...pairs].join('\n'));
    const { sha256 } = await import('../../src/crypto/tokens.ts');
    const { grant_id } = await t.runtime.db
      .selectFrom('oauth_tokens')
      .select('grant_id')
      .where('token_hash', '=', sha256(first.refresh_token))
      .executeTakeFirstOrThrow();
    const issued = await t.runtime.db
      .selectFrom('oauth_tokens')
      .select('kind')
      .where('grant_id', '=', grant_id)
      .execute();
    assert.equal(issued.length, 4, 'the first pair and one rotation, never more');
  });
});
