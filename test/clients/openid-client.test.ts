/**
 * Full flows driven by openid-client (the certified relying party on top of oauth4webapi):
 * discovery, PKCE, state, nonce, `iss` (RFC 9207), id_token signature checked against jwks_uri
 * (non-repudiation checks on), UserInfo, refresh, introspection and revocation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { authorizeInBrowser, Browser } from '../support/oauth-flow.ts';
import { type ClientWorld, createClientWorld } from './scenarios.ts';

describe('openid-client end to end', () => {
  let world: ClientWorld;
  before(async () => {
    world = await createClientWorld();
  });
  after(() => world?.close());

  it('every client kind: discover, authorize, exchange, UserInfo, refresh, introspect, revoke', async () => {
    const { t } = world;
    for (const s of world.scenarios) {
      await it(s.name, async () => {
        const config = await client.discovery(
          new URL(t.config.baseUrl),
          s.clientId,
          { id_token_signed_response_alg: 'ES256' },
          !s.clientSecret
            ? client.None()
            : s.authMethod === 'client_secret_basic'
              ? client.ClientSecretBasic(s.clientSecret)
              : client.ClientSecretPost(s.clientSecret),
          { execute: [client.allowInsecureRequests], [client.customFetch]: world.fetch },
        );
        client.enableNonRepudiationChecks(config);
        const verifier = client.randomPKCECodeVerifier();
        const state = client.randomState();
        const nonce = client.randomNonce();
        const url = client.buildAuthorizationUrl(config, {
          redirect_uri: s.redirectUri,
          scope: s.scopes,
          state,
          nonce,
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          ...(s.resource ? { resource: s.resource } : {}),
        });
        const { location } = await authorizeInBrowser(new Browser(t), url.href, { user: s.user });
        const extra = s.resource ? { resource: s.resource } : undefined;
        const tokens = await client.authorizationCodeGrant(
          config,
          location,
          { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true },
          extra,
        );
        const claims = tokens.claims()!;
        assert.equal(claims.iss, t.config.baseUrl);
        assert.equal(claims.aud, s.clientId);
        assert.equal(claims.nonce, nonce);
        assert.deepEqual(claims.roles, s.expectedRoles);
        assert.equal(tokens.scope, s.scopes);
        assert.ok(tokens.expiresIn()! > 3590 && tokens.expiresIn()! <= 3600);

        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        for (const k of ['sub', 'email', 'name', 'org_id', 'roles']) assert.deepEqual(info[k], claims[k], k);

        const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, extra);
        assert.equal(refreshed.id_token, undefined);
        assert.equal(refreshed.claims(), undefined);

        const introspection = await client.tokenIntrospection(config, refreshed.access_token);
        assert.equal(introspection.active, true);
        assert.equal(introspection.aud, t.config.baseUrl);
        assert.equal(introspection.org_id, claims.org_id);

        await client.tokenRevocation(config, refreshed.refresh_token!);
        await assert.rejects(
          client.fetchUserInfo(config, refreshed.access_token, claims.sub),
          (err: Error & { status?: number }) => {
            assert.equal((err.cause as Response | undefined)?.status ?? err.status, 401);
            return true;
          },
        );
        await assert.rejects(
          client.refreshTokenGrant(config, refreshed.refresh_token!),
          (err: client.ResponseBodyError) => err.error === 'invalid_grant',
        );
        // The old (rotated-out) refresh token is reuse as well.
        await assert.rejects(
          client.refreshTokenGrant(config, tokens.refresh_token!),
          (err: client.ResponseBodyError) => err.error === 'invalid_grant',
        );
      });
    }
  });
});
