/**
 * Gemini CLI (`@google/gemini-cli-core`) signing in to Lectern as its source does it:
 * `/mcp auth <server>` (packages/cli/src/ui/commands/mcpCommand.ts) calls
 * MCPOAuthProvider.authenticate (packages/core/src/mcp/oauth-provider.ts), which probes the
 * server with HEAD, discovers with OAuthUtils.discoverOAuthConfig (packages/core/src/mcp/oauth-utils.ts,
 * including its ResourceMismatchError check), registers a loopback client, authorizes with
 * `resource`, exchanges (packages/core/src/utils/oauth-flow.ts) and later refreshes through
 * DynamicStoredOAuthProvider (packages/core/src/mcp/stored-token-provider.ts). Its scopes are
 * `oauth.scopes` of settings.json, else every `scopes_supported` of the authorization-server
 * metadata.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MCP_CHALLENGE_SCOPES } from '../../src/oauth/scopes.ts';
import {
  assertErrorDescriptionCharset,
  assertGrantedExactly,
  authMdBlock,
  granted,
  HostNetwork,
  type HostWorld,
  introspect,
  type HostNetwork as Net,
  Person,
  pageText,
  pkcePair,
  randomState,
  startHostWorld,
  tokens,
  toolNames,
} from './support.ts';

/** OAuthUtils' error for a protected-resource document naming another resource. */
class ResourceMismatchError extends Error {}

interface MCPOAuthConfig {
  enabled?: boolean;
  clientId?: string;
  authorizationUrl?: string;
  issuer?: string;
  tokenUrl?: string;
  scopes?: string[];
  registrationUrl?: string;
}

/** A settings.json `mcpServers` entry (packages/core/src/config/config.ts MCPServerConfig). */
interface ServerSettings {
  url?: string;
  httpUrl?: string;
  type?: 'http' | 'sse';
  oauth?: MCPOAuthConfig;
}

/** OAuthUtils.buildResourceParameter: protocol, host and path of the server URL. */
function buildResourceParameter(endpointUrl: string): string {
  const url = new URL(endpointUrl);
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** OAuthUtils.buildWellKnownUrls: the well-known path inserted before the server URL's path. */
function protectedResourceUrl(serverUrl: string, useRootDiscovery = false): string {
  const url = new URL(serverUrl);
  const suffix = useRootDiscovery ? '' : url.pathname.replace(/\/$/, '');
  return new URL(`/.well-known/oauth-protected-resource${suffix}`, `${url.protocol}//${url.host}`).toString();
}

/** The CLI: its settings, its token storage (~/.gemini/mcp-oauth-tokens.json) and its network. */
class GeminiCli {
  readonly net: Net;
  readonly person: Person;
  readonly settings: Record<string, ServerSettings>;
  readonly stored = new Map<
    string,
    {
      token: { accessToken: string; refreshToken: string; scope?: string };
      clientId: string;
      tokenUrl: string;
      mcpServerUrl: string;
    }
  >();
  registrations: Record<string, unknown>[] = [];
  lastAuthorizationUrl?: URL;

  constructor(net: Net, person: Person, settings: Record<string, ServerSettings>) {
    this.net = net;
    this.person = person;
    this.settings = settings;
  }

  /** OAuthUtils.fetchProtectedResourceMetadata / fetchAuthorizationServerMetadata: null unless 200. */
  private async fetchJson(url: string): Promise<Record<string, unknown> | null> {
    const res = await this.net.fetch(url);
    return res.ok ? ((await res.json()) as Record<string, unknown>) : null;
  }

  /** OAuthUtils.discoverAuthorizationServerMetadata. */
  async discoverAuthorizationServerMetadata(authServerUrl: string) {
    const url = new URL(authServerUrl);
    const base = `${url.protocol}//${url.host}`;
    const endpoints: string[] = [];
    if (url.pathname !== '/') {
      endpoints.push(new URL(`/.well-known/oauth-authorization-server${url.pathname}`, base).toString());
      endpoints.push(new URL(`/.well-known/openid-configuration${url.pathname}`, base).toString());
      endpoints.push(new URL(`${url.pathname}/.well-known/openid-configuration`, base).toString());
    }
    endpoints.push(new URL('/.well-known/oauth-authorization-server', base).toString());
    endpoints.push(new URL('/.well-known/openid-configuration', base).toString());
    for (const endpoint of endpoints) {
      const metadata = await this.fetchJson(endpoint);
      if (metadata) return metadata;
    }
    return null;
  }

  /** OAuthUtils.metadataToOAuthConfig. */
  private toConfig(metadata: Record<string, unknown>): MCPOAuthConfig {
    return {
      authorizationUrl: metadata.authorization_endpoint as string,
      issuer: metadata.issuer as string,
      tokenUrl: metadata.token_endpoint as string,
      scopes: (metadata.scopes_supported as string[] | undefined) || [],
      registrationUrl: metadata.registration_endpoint as string | undefined,
    };
  }

  /** OAuthUtils.discoverOAuthConfig, with its RFC 9728 §7.3 resource check. */
  async discoverOAuthConfig(serverUrl: string): Promise<MCPOAuthConfig | null> {
    let resourceMetadata = await this.fetchJson(protectedResourceUrl(serverUrl));
    if (!resourceMetadata) {
      const url = new URL(serverUrl);
      if (url.pathname && url.pathname !== '/') {
        resourceMetadata = await this.fetchJson(protectedResourceUrl(serverUrl, true));
      }
    }
    if (resourceMetadata) {
      const expected = buildResourceParameter(serverUrl);
      if (resourceMetadata.resource !== expected) {
        throw new ResourceMismatchError(
          `Protected resource ${resourceMetadata.resource} does not match expected ${expected}`,
        );
      }
    }
    const servers = resourceMetadata?.authorization_servers as string[] | undefined;
    if (servers?.length) {
      const metadata = await this.discoverAuthorizationServerMetadata(servers[0]);
      if (metadata) return this.toConfig(metadata);
    }
    const metadata = await this.discoverAuthorizationServerMetadata(serverUrl);
    return metadata ? this.toConfig(metadata) : null;
  }

  /** `/mcp auth <name>`: mcpCommand.ts → MCPOAuthProvider.authenticate. */
  async mcpAuth(name: string): Promise<{ callback: URL }> {
    const server = this.settings[name];
    let config: MCPOAuthConfig = { ...(server.oauth ?? { enabled: false }) };
    const mcpServerUrl = (server.httpUrl || server.url) as string;
    if (!config.authorizationUrl && mcpServerUrl) {
      // isSSEEndpoint: a URL with /mcp and without /sse is streamable HTTP.
      const probe = await this.net.fetch(mcpServerUrl, {
        method: 'HEAD',
        headers: { Accept: 'application/json' },
      });
      assert.notEqual(probe.status, 401, 'a 401 here would take the WWW-Authenticate path');
      const discovered = await this.discoverOAuthConfig(mcpServerUrl);
      assert.ok(discovered, 'Failed to discover OAuth configuration from MCP server');
      config = {
        ...config,
        authorizationUrl: discovered.authorizationUrl,
        tokenUrl: discovered.tokenUrl,
        issuer: discovered.issuer,
        scopes: config.scopes || discovered.scopes || [],
        registrationUrl: discovered.registrationUrl,
      };
    }
    // oauth-flow.ts: PKCE (64 random bytes), the callback server on an OS-assigned port.
    const { verifier, challenge } = pkcePair();
    const state = randomState();
    const port = 40000 + Math.floor(Math.random() * 20000);
    const redirectUri = `http://localhost:${port}/oauth/callback`;
    if (!config.clientId) {
      assert.ok(config.registrationUrl, 'No client ID provided and dynamic registration not supported');
      const body = {
        client_name: 'Gemini CLI MCP Client',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: config.scopes?.join(' ') || '',
      };
      this.registrations.push(body);
      const res = await this.net.postJson(config.registrationUrl, body);
      const text = await res.text();
      assert.ok(res.ok, `Client registration failed: ${res.status} - ${text}`);
      config.clientId = (JSON.parse(text) as { client_id: string }).client_id;
    }
    const resource = buildResourceParameter(mcpServerUrl);
    const params = new URLSearchParams({
      client_id: config.clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    if (config.scopes && config.scopes.length > 0) params.append('scope', config.scopes.join(' '));
    params.append('resource', resource);
    const authUrl = new URL(config.authorizationUrl as string);
    for (const [k, v] of params) authUrl.searchParams.append(k, v);
    this.lastAuthorizationUrl = authUrl;
    const callback = await this.person.authorize(authUrl.toString());
    assert.equal(`${callback.origin}${callback.pathname}`, redirectUri);
    if (callback.searchParams.get('error')) return { callback };
    assert.equal(callback.searchParams.get('state'), state);
    const answer = await tokens(
      await this.net.postForm(config.tokenUrl as string, {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: config.clientId,
        resource,
      }),
    );
    this.stored.set(name, {
      token: { accessToken: answer.access_token, refreshToken: answer.refresh_token, scope: answer.scope },
      clientId: config.clientId,
      tokenUrl: config.tokenUrl as string,
      mcpServerUrl,
    });
    return { callback };
  }

  /**
   * DynamicStoredOAuthProvider.tokens() → getValidTokenWithMetadata → refreshAccessToken: the
   * server's oauth settings when `enabled`, else none; `scope` and `resource` as refreshed.
   */
  async refresh(name: string): Promise<{ scope?: string }> {
    const credentials = this.stored.get(name);
    assert.ok(credentials);
    const oauth = this.settings[name].oauth;
    const config = oauth?.enabled && oauth ? oauth : {};
    const fields: Record<string, string> = {
      grant_type: 'refresh_token',
      refresh_token: credentials.token.refreshToken,
      client_id: config.clientId ?? credentials.clientId,
    };
    if (config.scopes && config.scopes.length > 0) fields.scope = config.scopes.join(' ');
    fields.resource = buildResourceParameter(credentials.mcpServerUrl);
    const answer = await tokens(await this.net.postForm(credentials.tokenUrl, fields));
    credentials.token = {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token || credentials.token.refreshToken,
      scope: answer.scope || credentials.token.scope,
    };
    return { scope: answer.scope };
  }
}

describe('Gemini CLI', () => {
  let h: HostWorld;
  before(async () => {
    h = await startHostWorld();
  });
  after(() => h.close());

  it('discovery: HEAD /mcp, then the /mcp resource document (resource must be BASE_URL/mcp), then the authorization-server metadata', async () => {
    const net = new HostNetwork(h.t);
    const cli = new GeminiCli(net, new Person(h.t), {});
    const config = await cli.discoverOAuthConfig(h.mcpUrl);
    assert.deepEqual(net.take(), [
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
    ]);
    assert.equal(config?.tokenUrl, `${h.base}/api/oauth/token`);
    // The check is real: the origin's own document (resource BASE_URL) would be refused for /mcp.
    const root = await net.getJson(`${h.base}/.well-known/oauth-protected-resource`);
    assert.notEqual(root.resource, buildResourceParameter(h.mcpUrl));
  });

  it('`gemini mcp add` alone: /mcp auth asks for every scopes_supported and ends in invalid_scope, whose description names the Gemini CLI guide', async () => {
    const net = new HostNetwork(h.t);
    const person = new Person(h.t);
    const cli = new GeminiCli(net, person, { lectern: { url: h.mcpUrl, type: 'http' } });
    const { callback } = await cli.mcpAuth('lectern');
    assert.deepEqual(net.take(), [
      'HEAD /mcp 405',
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /api/oauth/register 201',
    ]);
    const asked = cli.lastAuthorizationUrl?.searchParams.get('scope')?.split(' ') ?? [];
    assert.ok(asked.includes('account:read') && asked.includes('courses:write'), asked.join(' '));
    assert.equal(callback.searchParams.get('error'), 'invalid_scope');
    const description = callback.searchParams.get('error_description') ?? '';
    assert.ok(description.includes(`${h.base}/auth.md#gemini-cli`), description);
    assertErrorDescriptionCharset(description);
    assert.equal(callback.searchParams.get('iss'), h.base);
    assert.equal(person.consentPages.length, 0, 'refused before sign-in');
  });

  it('the settings.json of /auth.md: one consent, a token for BASE_URL/mcp with exactly its scopes, refresh with scopes and resource; the next /mcp auth registers again and shows consent again', async () => {
    const snippet = JSON.parse(await authMdBlock(h.t, '### Gemini CLI', 'json')) as {
      mcpServers: Record<string, ServerSettings>;
    };
    const entry = snippet.mcpServers.lectern;
    assert.equal(entry.url, h.mcpUrl);
    assert.equal(entry.type, 'http');
    assert.equal(entry.oauth?.enabled, true);
    assert.deepEqual(entry.oauth?.scopes, [...MCP_CHALLENGE_SCOPES]);

    const net = new HostNetwork(h.t);
    const person = new Person(h.t);
    const cli = new GeminiCli(net, person, snippet.mcpServers);
    const { callback } = await cli.mcpAuth('lectern');
    assert.equal(callback.searchParams.get('error'), null, callback.toString());
    assert.equal(cli.registrations.length, 1);
    const registered = cli.stored.get('lectern');
    assert.ok(registered);
    // A loopback registration: a client of its own, public, for the operator audience.
    assert.match(registered.clientId, /^lc_/);
    await assertGrantedExactly(h.t, registered.clientId, entry.oauth?.scopes ?? []);
    assert.deepEqual(granted(registered.token.scope ?? ''), [...(entry.oauth?.scopes ?? [])].sort());
    assert.equal(cli.lastAuthorizationUrl?.searchParams.get('resource'), h.mcpUrl);
    assert.equal(person.consentPages.length, 1);
    assert.match(pageText(person.consentPages[0]), /Gemini CLI MCP Client/);

    // The token is for the resource it named, and works at /mcp.
    assert.equal((await introspect(net, registered.token.accessToken, registered.clientId)).aud, h.mcpUrl);
    const tools = await toolNames(net, h.mcpUrl, registered.token.accessToken);
    assert.ok(tools.includes('courses_list'), tools.join(' '));

    // Reconnecting refreshes: the configured scopes and the resource again, and no page.
    const refreshed = await cli.refresh('lectern');
    assert.deepEqual(granted(refreshed.scope ?? ''), [...(entry.oauth?.scopes ?? [])].sort());
    assert.ok(
      (await toolNames(net, h.mcpUrl, cli.stored.get('lectern')?.token.accessToken)).includes('courses_list'),
    );
    assert.equal(person.consentPages.length, 1);

    // `/mcp auth lectern` again: a new loopback registration, and the page again (RFC 8252 §8.6).
    const again = await cli.mcpAuth('lectern');
    assert.equal(again.callback.searchParams.get('error'), null);
    assert.equal(cli.registrations.length, 2);
    assert.equal(person.consentPages.length, 2);
  });
});
