/**
 * The revocations a replay causes are in the security log, written once, by the outbox
 * (events/outbox.ts) with the `grant.revoked` event of the audit trail: a replayed authorization
 * code (RFC 6749 §4.1.2, OAuth 2.1 §4.1.3) and a replayed refresh token (OAuth 2.1 §4.3.1,
 * RFC 9700 §4.14.2). One consent is one `grant.created` line, never two.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../../src/crypto/tokens.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';
import { obtainCode, registerLoopbackClient, tokenRequest } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';

type Line = Record<string, unknown>;

describe('the security log of a replay', () => {
  let t: LoggedTestApp;
  let world: World;
  let client: string;
  before(async () => {
    // No reuse grace: a refresh token presented twice is reuse at once.
    t = await createLoggedTestApp({ LOG_LEVEL: 'info', REFRESH_REUSE_GRACE_SECONDS: '0' });
    world = await createWorld(t);
    client = (await registerLoopbackClient(t)).client_id;
  });
  after(() => t.close());

  const lines = (mark: number, event: string): Line[] => t.logs.slice(mark).filter((l) => l.event === event);

  /** A consent and its code's first exchange; the grant's id is read back from the token. */
  async function consentAndExchange() {
    const { code, verifier, redirectUri } = await obtainCode(t, {
      clientId: client,
      scopes: ['openid', 'courses:read'],
      user: 'owner@example.com',
    });
    const fields = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: client,
      code_verifier: verifier,
    };
    const res = await tokenRequest(t, fields);
    assert.equal(res.status, 200, await res.clone().text());
    const tokens = (await res.json()) as { access_token: string; refresh_token: string };
    const { grant_id } = await t.runtime.db
      .selectFrom('oauth_tokens')
      .select('grant_id')
      .where('token_hash', '=', sha256(tokens.access_token))
      .executeTakeFirstOrThrow();
    return { fields, tokens, grantId: grant_id };
  }

  /** The one `grant.revoked` line since `mark`, and the audit trail's event it names. */
  async function revokedLine(mark: number, grantId: string) {
    const revoked = lines(mark, 'grant.revoked');
    assert.equal(revoked.length, 1, JSON.stringify(revoked));
    const [line] = revoked;
    assert.equal(line.grantId, grantId);
    assert.equal(line.level, 30, 'security events are logged at info');
    const event = await t.runtime.db
      .selectFrom('domain_events')
      .select(['type', 'school_id'])
      .where('id', '=', String(line.eventId))
      .executeTakeFirstOrThrow();
    assert.deepEqual({ ...event }, { type: 'grant.revoked', school_id: world.demo.schoolId });
    return line;
  }

  it('a replayed authorization code: the grant’s revocation is logged once, with why (RFC 6749 §4.1.2)', async () => {
    const mark = t.logs.length;
    const { fields, grantId } = await consentAndExchange();
    assert.equal(lines(mark, 'grant.created').length, 1, 'one consent, one line');
    const replay = await tokenRequest(t, fields);
    assert.equal(replay.status, 400);
    assert.match((await replay.json()).error_description, /already used/);
    const line = await revokedLine(mark, grantId);
    assert.deepEqual(
      [line.schoolId, line.clientId, line.userId, line.by, line.reason],
      [world.demo.schoolId, client, world.demo.ownerId, 'lectern', 'authorization_code_reused'],
    );
    assert.equal(typeof line.requestId, 'string');
    // A third try revokes nothing more, and logs nothing more.
    const again = t.logs.length;
    assert.equal((await tokenRequest(t, fields)).status, 400);
    assert.equal(lines(again, 'grant.revoked').length, 0);
  });

  it('a replayed refresh token: the grant’s revocation is logged once, with why (RFC 9700 §4.14.2)', async () => {
    const { tokens, grantId } = await consentAndExchange();
    const mark = t.logs.length;
    const refresh = { grant_type: 'refresh_token', client_id: client, refresh_token: tokens.refresh_token };
    assert.equal((await tokenRequest(t, refresh)).status, 200);
    assert.equal(lines(mark, 'grant.revoked').length, 0, 'a rotation revokes nothing');
    const replay = await tokenRequest(t, refresh);
    assert.equal(replay.status, 400);
    assert.match((await replay.json()).error_description, /already used/);
    const line = await revokedLine(mark, grantId);
    assert.deepEqual(
      [line.schoolId, line.clientId, line.userId, line.by, line.reason],
      [world.demo.schoolId, client, world.demo.ownerId, 'lectern', 'refresh_token_reused'],
    );
  });
});
