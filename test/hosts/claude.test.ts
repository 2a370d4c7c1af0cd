/**
 * Claude signing in to Lectern. claude.ai (and Claude Desktop, whose connectors run in
 * Anthropic's cloud) is closed source; its replay follows Anthropic's connector documentation
 * (https://claude.com/docs/connectors/building/authentication): the path-suffixed resource
 * document, whose `resource` must be the server URL as entered; the authorization-server
 * metadata; its Client ID Metadata Document https://claude.ai/oauth/mcp-oauth-client-metadata
 * when the server advertises client_id_metadata_document_supported and `none`; the callback
 * https://claude.ai/api/mcp/auth_callback; `resource` at authorization and token endpoint; the
 * scopes of the challenge or of the resource document (Lectern's lists none). Claude Code runs
 * the MCP TypeScript SDK's `auth()` (here @modelcontextprotocol/sdk 1.x, routed to the app in
 * process) with its metadata document https://claude.ai/oauth/claude-code-client-metadata and a
 * loopback callback http://localhost:<port>/callback (https://code.claude.com/docs/en/mcp).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { MCP_CHALLENGE_SCOPES } from '../../src/oauth/scopes.ts';
import {
  firstHostedConnection,
  granted,
  HostNetwork,
  type HostWorld,
  hostedConnectorSignIn,
  introspect,
  Person,
  pageText,
  randomState,
  startHostWorld,
} from './support.ts';

const CLAUDE_DOCUMENT = 'https://claude.ai/oauth/mcp-oauth-client-metadata';
const CLAUDE_CALLBACK = 'https://claude.ai/api/mcp/auth_callback';
const CLAUDE_CODE_DOCUMENT = 'https://claude.ai/oauth/claude-code-client-metadata';

/** Claude Code's OAuthClientProvider: its metadata document, a loopback callback, the person. */
class ClaudeCodeProvider {
  readonly redirectUrl = `http://localhost:${40000 + Math.floor(Math.random() * 20000)}/callback`;
  readonly clientMetadataUrl = CLAUDE_CODE_DOCUMENT;
  readonly person: Person;
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  lastState?: string;
  authorizationUrls: URL[] = [];
  callback?: URL;

  constructor(person: Person) {
    this.person = person;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Claude Code',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    this.lastState = randomState();
    return this.lastState;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    this.callback = await this.person.authorize(url.toString());
    assert.equal(`${this.callback.origin}${this.callback.pathname}`, this.redirectUrl);
    assert.equal(this.callback.searchParams.get('state'), this.lastState);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    assert.ok(this.verifier);
    return this.verifier;
  }
  invalidateCredentials(scope: string) {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
  }
}

describe('Claude', () => {
  let h: HostWorld;
  before(async () => {
    h = await startHostWorld();
  });
  after(() => h.close());

  it('claude.ai: the /mcp resource document, the pinned metadata document, no scope, resource BASE_URL/mcp; one consent, none the next time (a fixed HTTPS callback)', async () => {
    const { net, person, first } = await firstHostedConnection(h, CLAUDE_DOCUMENT, CLAUDE_CALLBACK, /Claude/);
    assert.equal(first.url.searchParams.get('scope'), null, 'the resource document lists no scopes');

    // Connecting again (another device, or after disconnecting): remembered, no page.
    const second = await hostedConnectorSignIn(h, net, person, CLAUDE_DOCUMENT, CLAUDE_CALLBACK);
    assert.deepEqual(granted(second.answer.scope), [...MCP_CHALLENGE_SCOPES].sort());
    assert.equal(person.consentPages.length, 1);
  });

  it('Claude Code: the SDK’s auth() with its metadata document and a localhost callback; resource BASE_URL/mcp, no scope; consent at every sign-in (loopback)', async () => {
    const net = new HostNetwork(h.t);
    const person = new Person(h.t);
    const fetchFn = (url: string | URL, init?: RequestInit) => net.fetch(url, init);
    const signIn = async (provider: ClaudeCodeProvider) => {
      assert.equal(await auth(provider, { serverUrl: h.mcpUrl, fetchFn }), 'REDIRECT');
      const code = provider.callback?.searchParams.get('code') ?? undefined;
      assert.ok(code, provider.callback?.toString());
      assert.equal(
        await auth(provider, { serverUrl: h.mcpUrl, authorizationCode: code, fetchFn }),
        'AUTHORIZED',
      );
    };
    const provider = new ClaudeCodeProvider(person);
    await signIn(provider);
    const sent = net.take();
    assert.deepEqual(sent.slice(0, 2), [
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
    ]);
    assert.ok(
      !sent.some((s) => s.startsWith('POST /api/oauth/register')),
      'no registration: the metadata document',
    );
    const asked = provider.authorizationUrls[0];
    assert.equal(asked.searchParams.get('client_id'), CLAUDE_CODE_DOCUMENT);
    assert.equal(asked.searchParams.get('resource'), h.mcpUrl);
    assert.equal(asked.searchParams.get('scope'), null);
    assert.deepEqual(granted(provider.saved?.scope ?? ''), [...MCP_CHALLENGE_SCOPES].sort());
    assert.equal(person.consentPages.length, 1);
    assert.match(pageText(person.consentPages[0]), /Claude Code/);
    assert.equal(
      (await introspect(net, provider.saved?.access_token ?? '', CLAUDE_CODE_DOCUMENT)).aud,
      h.mcpUrl,
    );

    // Reconnecting: the SDK refreshes with the stored refresh token, and no page.
    assert.equal(await auth(provider, { serverUrl: h.mcpUrl, fetchFn }), 'AUTHORIZED');
    assert.ok(net.take().includes('POST /api/oauth/token 200'));
    assert.equal(person.consentPages.length, 1);
    // Signing in again (`/mcp` → Authenticate after signing out): the loopback callback sees consent.
    await signIn(new ClaudeCodeProvider(person));
    assert.equal(person.consentPages.length, 2);
  });
});
