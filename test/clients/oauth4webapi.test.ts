/**
 * Full flows driven by oauth4webapi, a strict client: it checks `iss` in the authorization
 * response (RFC 9207), PKCE, the ES256 id_token (claims and, here, its signature against
 * jwks_uri) and the nonce. The test plays the browser; every other request is the library's own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import { authorizeInBrowser, Browser } from '../support/oauth-flow.ts';
import { type ClientWorld, createClientWorld } from './scenarios.ts';

describe('oauth4webapi end to end', () => {
  let world: ClientWorld;
  before(async () => {
    world = await createClientWorld();
  });
  after(() => world?.close());

  it('every client kind: discover, authorize, exchange, verify id_token, UserInfo, refresh, introspect, revoke', async () => {
    const { t } = world;
    const issuer = new URL(t.config.baseUrl);
    const http = { [oauth.customFetch]: world.fetch, [oauth.allowInsecureRequests]: true } as const;
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...http, algorithm: 'oidc' }),
    );
    assert.equal(as.issuer, t.config.baseUrl);

    for (const s of world.scenarios) {
      await it(s.name, async () => {
        const client: oauth.Client = { client_id: s.clientId, id_token_signed_response_alg: 'ES256' };
        const auth = !s.clientSecret
          ? oauth.None()
          : s.authMethod === 'client_secret_basic'
            ? oauth.ClientSecretBasic(s.clientSecret)
            : oauth.ClientSecretPost(s.clientSecret);
        const verifier = oauth.generateRandomCodeVerifier();
        const state = oauth.generateRandomState();
        const nonce = oauth.generateRandomNonce();
        const url = new URL(as.authorization_endpoint!);
        url.search = new URLSearchParams({
          response_type: 'code',
          client_id: s.clientId,
          redirect_uri: s.redirectUri,
          scope: s.scopes,
          state,
          nonce,
          code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          ...(s.resource ? { resource: s.resource } : {}),
        }).toString();
        const { location, consentPage } = await authorizeInBrowser(new Browser(t), url.href, {
          user: s.user,
        });
        // product.md §8: the consent page warns visibly for unreviewed CIMD and loopback clients.
        const warning = /Lectern has not reviewed this app|Check that you started this app yourself/;
        if (s.kind === 'cimd' || s.kind === 'loopback') assert.match(consentPage!, warning);
        else assert.doesNotMatch(consentPage!, warning);
        assert.equal(location.href.split('?')[0], s.redirectUri);

        // RFC 9207: validateAuthResponse refuses a response without the right iss.
        const params = oauth.validateAuthResponse(as, client, location, state);
        const extra = s.resource ? { additionalParameters: { resource: s.resource } } : {};
        const codeResponse = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          auth,
          params,
          s.redirectUri,
          verifier,
          { ...http, ...extra },
        );
        const tokens = await oauth.processAuthorizationCodeResponse(as, client, codeResponse, {
          expectedNonce: nonce,
          requireIdToken: true,
        });
        await oauth.validateApplicationLevelSignature(as, codeResponse, http);
        const claims = oauth.getValidatedIdTokenClaims(tokens)!;
        assert.equal(claims.iss, t.config.baseUrl);
        assert.equal(claims.aud, s.clientId);
        assert.equal(claims.nonce, nonce);
        assert.deepEqual(claims.roles, s.expectedRoles);
        assert.equal(tokens.token_type, 'bearer');
        assert.equal(tokens.scope, s.scopes);

        const info = await oauth.processUserInfoResponse(
          as,
          client,
          claims.sub,
          await oauth.userInfoRequest(as, client, tokens.access_token, http),
        );
        for (const k of ['sub', 'email', 'name', 'org_id', 'roles']) assert.deepEqual(info[k], claims[k], k);

        const refreshed = await oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, {
            ...http,
            ...extra,
          }),
        );
        assert.equal(refreshed.id_token, undefined);
        assert.notEqual(refreshed.refresh_token, tokens.refresh_token);

        const introspection = await oauth.processIntrospectionResponse(
          as,
          client,
          await oauth.introspectionRequest(as, client, auth, refreshed.access_token, http),
        );
        assert.equal(introspection.active, true);
        assert.equal(introspection.aud, t.config.baseUrl);
        assert.equal(introspection.client_id, s.clientId);
        assert.equal(introspection.sub, claims.sub);

        await oauth.processRevocationResponse(
          await oauth.revocationRequest(as, client, auth, refreshed.refresh_token!, http),
        );
        const afterRevoke = await oauth.userInfoRequest(as, client, refreshed.access_token, http);
        assert.equal(afterRevoke.status, 401, 'revoking the refresh token revoked the grant');
        await assert.rejects(
          oauth.processRefreshTokenResponse(
            as,
            client,
            await oauth.refreshTokenGrantRequest(as, client, auth, refreshed.refresh_token!, http),
          ),
          (err: oauth.ResponseBodyError) => err.error === 'invalid_grant',
        );
      });
    }
  });
});
