/**
 * Codex CLI signing in to Lectern as its source does it: `codex mcp login <server>` resolves the
 * scopes (openai/codex codex-rs/codex-mcp/src/mcp/auth.rs resolve_oauth_scopes: `--scopes`, then
 * `scopes` of the server's config.toml entry (codex-rs/config/src/mcp_types.rs), then the
 * authorization server's `scopes_supported`, retrying with none when discovered ones fail), and codex-rs/rmcp-client/src/oauth_client_registration.rs starts
 * the rmcp crate's AuthorizationSession (modelcontextprotocol/rust-sdk crates/rmcp/src/transport/auth.rs):
 * discovery (`resolve_metadata`), the Client ID Metadata Document https://chatgpt.com/oauth/codex/client.json
 * with the shared loopback callback when the authorization server's responses are issuer-bound
 * (oauth_callback.rs), `resource` from the protected-resource document, `offline_access` added
 * when advertised, and refresh with the granted scopes and the resource.
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
  Person,
  pageText,
  parseToml,
  pkcePair,
  randomState,
  startHostWorld,
  tokens,
  toolNames,
} from './support.ts';

const CODEX_DOCUMENT = 'https://chatgpt.com/oauth/codex/client.json';

/** AuthorizationManager::well_known_paths. */
function wellKnownPaths(basePath: string, resource: string): string[] {
  const trimmed = basePath.replace(/^\/+/, '').replace(/\/+$/, '');
  const canonical = `/.well-known/${resource}`;
  if (!trimmed) return [canonical];
  return [...new Set([`${canonical}/${trimmed}`, `/${trimmed}/.well-known/${resource}`, canonical])];
}

/** AuthorizationManager::generate_discovery_urls. */
function discoveryUrls(base: URL): string[] {
  const trimmed = base.pathname.replace(/^\/+/, '').replace(/\/+$/, '');
  const at = (path: string) => new URL(path, base.origin).toString();
  if (!trimmed)
    return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
  return [
    at(`/.well-known/oauth-authorization-server/${trimmed}`),
    at(`/.well-known/openid-configuration/${trimmed}`),
    at(`/${trimmed}/.well-known/openid-configuration`),
    at('/.well-known/oauth-authorization-server'),
  ];
}

/** AuthorizationManager::is_resource_identifier_valid: equal, or a path prefix at a segment boundary. */
function resourceIdentifierValid(expected: URL, actual: URL): boolean {
  if (expected.toString() === actual.toString()) return true;
  if (expected.protocol !== actual.protocol || expected.host !== actual.host) return false;
  const e = expected.pathname;
  const a = actual.pathname;
  if (e === a) return true;
  return e.startsWith(a) && (a.endsWith('/') || e[a.length] === '/');
}

/** AuthorizationManager::issuer_identifiers_match: equal, up to a root path's trailing slash. */
function issuersMatch(received: string, expected: string): boolean {
  const trim = (issuer: string) => {
    const without = issuer.endsWith('/') ? issuer.slice(0, -1) : undefined;
    return without && ['', '/'].includes(new URL(without).pathname) ? without : issuer;
  };
  return received === expected || trim(received) === trim(expected);
}

interface Discovery {
  metadata: Record<string, unknown>;
  resource: string;
  resourceScopes: string[];
}

/** The Codex host: its config.toml entry, its stored credentials and its network. */
class CodexCli {
  readonly net: HostNetwork;
  readonly person: Person;
  readonly entry: { url: string; scopes?: string[] };
  authorizationUrls: URL[] = [];
  credentials?: {
    clientId: string;
    access: string;
    refresh: string;
    granted: string[];
    discovery: Discovery;
  };

  constructor(net: HostNetwork, person: Person, entry: { url: string; scopes?: string[] }) {
    this.net = net;
    this.person = person;
    this.entry = entry;
  }

  /** GET with rmcp's discovery header. */
  private get(url: string) {
    return this.net.fetch(url, { headers: { 'MCP-Protocol-Version': '2024-11-05' } });
  }

  /** AuthorizationManager::resolve_metadata, by protected-resource metadata (SEP-985). */
  async resolveMetadata(): Promise<Discovery> {
    const base = new URL(this.entry.url);
    let metadataUrl: string | undefined;
    const probe = async (url: string) => {
      const res = await this.get(url);
      if (res.status === 200) return url;
      if (res.status === 401)
        return /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1];
      return undefined;
    };
    metadataUrl = await probe(base.toString());
    for (const path of wellKnownPaths(base.pathname, 'oauth-protected-resource')) {
      if (metadataUrl) break;
      metadataUrl = await probe(new URL(path, base.origin).toString());
    }
    assert.ok(metadataUrl, 'no protected-resource metadata');
    const res = await this.get(metadataUrl);
    assert.equal(res.status, 200);
    const document = (await res.json()) as {
      resource?: string;
      authorization_servers?: string[];
      scopes_supported?: string[];
    };
    assert.ok(document.resource, 'Protected resource metadata missing required resource field');
    assert.ok(
      resourceIdentifierValid(base, new URL(document.resource)),
      `Protected resource metadata resource mismatch: reference '${base}', permitted '${document.resource}'`,
    );
    for (const candidate of document.authorization_servers ?? []) {
      const candidateUrl = new URL(candidate);
      for (const url of discoveryUrls(candidateUrl)) {
        const answer = await this.get(url);
        if (answer.status !== 200) continue;
        const metadata = (await answer.json()) as Record<string, unknown>;
        assert.ok(
          issuersMatch(metadata.issuer as string, candidateUrl.toString()),
          'AuthorizationServerMismatch',
        );
        return { metadata, resource: document.resource, resourceScopes: document.scopes_supported ?? [] };
      }
    }
    throw new Error('no authorization-server metadata');
  }

  /** resolve_oauth_scopes: explicit, then configured, then discovered (non-empty), else none. */
  private resolveScopes(discovered: string[] | undefined) {
    if (this.entry.scopes) return { scopes: this.entry.scopes, source: 'configured' as const };
    if (discovered?.length) return { scopes: discovered, source: 'discovered' as const };
    return { scopes: [] as string[], source: 'empty' as const };
  }

  /** `codex mcp login lectern`: discovery for the scopes, then the login, retried once without scopes. */
  async login(): Promise<{ error?: string; description?: string; attempts: number }> {
    const discovered = this.entry.scopes
      ? undefined
      : ((await this.resolveMetadata()).metadata.scopes_supported as string[] | undefined);
    const resolved = this.resolveScopes(discovered);
    let outcome = await this.attempt(resolved.scopes);
    let attempts = 1;
    // should_retry_without_scopes: discovered scopes refused by the provider.
    if (outcome.error && resolved.source === 'discovered') {
      outcome = await this.attempt([]);
      attempts++;
    }
    return { ...outcome, attempts };
  }

  /** One OauthLoginFlow: start_authorization, the browser, the callback, the exchange. */
  private async attempt(scopes: string[]): Promise<{ error?: string; description?: string }> {
    const discovery = await this.resolveMetadata();
    const { metadata } = discovery;
    // callback_mode: issuer-bound when the metadata advertises iss responses and has an issuer.
    const issuerBound = metadata.authorization_response_iss_parameter_supported === true && !!metadata.issuer;
    assert.ok(issuerBound, 'Lectern is issuer-bound: the shared callback and the stable document');
    const port = 40000 + Math.floor(Math.random() * 20000);
    const redirectUri = `http://127.0.0.1:${port}/callback`;
    const cimd =
      metadata.client_id_metadata_document_supported === true &&
      (metadata.token_endpoint_auth_methods_supported as string[]).includes('none');
    assert.ok(cimd, 'CIMD is offered');
    const clientId = CODEX_DOCUMENT;
    // AuthorizationSession::new: empty scopes → select_scopes; else offline_access if advertised.
    const supported = (metadata.scopes_supported as string[] | undefined) ?? [];
    let requested = [...scopes];
    if (requested.length === 0)
      requested = discovery.resourceScopes.length ? [...discovery.resourceScopes] : [...supported];
    if (requested.length > 0 && !requested.includes('offline_access') && supported.includes('offline_access'))
      requested.push('offline_access');
    const { verifier, challenge } = pkcePair();
    const state = randomState();
    const url = new URL(metadata.authorization_endpoint as string);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', clientId);
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('redirect_uri', redirectUri);
    if (requested.length) url.searchParams.set('scope', requested.join(' '));
    url.searchParams.set('resource', discovery.resource);
    this.authorizationUrls.push(url);
    const callback = await this.person.authorize(url.toString());
    assert.equal(`${callback.origin}${callback.pathname}`, redirectUri);
    const error = callback.searchParams.get('error');
    if (error) return { error, description: callback.searchParams.get('error_description') ?? undefined };
    assert.equal(callback.searchParams.get('state'), state);
    // validate_authorization_response_issuer.
    assert.ok(issuersMatch(callback.searchParams.get('iss') ?? '', metadata.issuer as string));
    const answer = await tokens(
      await this.net.postForm(metadata.token_endpoint as string, {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: clientId,
        resource: discovery.resource,
      }),
    );
    this.credentials = {
      clientId,
      access: answer.access_token,
      refresh: answer.refresh_token,
      granted: answer.scope ? answer.scope.split(' ') : requested,
      discovery,
    };
    return {};
  }

  /** AuthorizationManager::refresh_token: the granted scopes (plus offline_access) and the resource. */
  async refresh(): Promise<string[]> {
    const c = this.credentials;
    assert.ok(c);
    const scopes = [...c.granted];
    const supported = (c.discovery.metadata.scopes_supported as string[] | undefined) ?? [];
    if (scopes.length && !scopes.includes('offline_access') && supported.includes('offline_access'))
      scopes.push('offline_access');
    const answer = await tokens(
      await this.net.postForm(c.discovery.metadata.token_endpoint as string, {
        grant_type: 'refresh_token',
        refresh_token: c.refresh,
        client_id: c.clientId,
        resource: c.discovery.resource,
        scope: scopes.join(' '),
      }),
    );
    c.access = answer.access_token;
    c.refresh = answer.refresh_token ?? c.refresh;
    c.granted = answer.scope.split(' ');
    return c.granted;
  }
}

describe('Codex CLI', () => {
  let h: HostWorld;
  before(async () => {
    h = await startHostWorld();
  });
  after(() => h.close());

  it('discovery: /mcp probed, then the /mcp resource document, then the authorization-server metadata of its issuer', async () => {
    const net = new HostNetwork(h.t);
    const codex = new CodexCli(net, new Person(h.t), { url: h.mcpUrl });
    const discovery = await codex.resolveMetadata();
    assert.deepEqual(net.take(), [
      'GET /mcp 405',
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
    ]);
    assert.equal(discovery.resource, h.mcpUrl);
    assert.deepEqual(discovery.resourceScopes, [], 'the resource document lists no scopes');
  });

  it('`codex mcp add` alone: every scopes_supported, invalid_scope naming the Codex CLI guide, the retry without scopes gets the same list and the same answer', async () => {
    const net = new HostNetwork(h.t);
    const person = new Person(h.t);
    const codex = new CodexCli(net, person, { url: h.mcpUrl });
    const outcome = await codex.login();
    assert.equal(outcome.attempts, 2);
    assert.equal(outcome.error, 'invalid_scope');
    assert.ok(outcome.description?.includes(`${h.base}/auth.md#codex-cli`), outcome.description);
    assertErrorDescriptionCharset(outcome.description ?? '');
    for (const url of codex.authorizationUrls) {
      assert.equal(url.searchParams.get('client_id'), CODEX_DOCUMENT);
      assert.ok(url.searchParams.get('scope')?.split(' ').includes('account:write'));
    }
    assert.equal(person.consentPages.length, 0);
  });

  it('the config.toml of /auth.md: the metadata document, one consent, exactly those scopes plus offline_access for BASE_URL/mcp; refresh; the next login shows consent again', async () => {
    const toml = parseToml(await authMdBlock(h.t, '### Codex CLI', 'toml'));
    const entry = toml['mcp_servers.lectern'];
    assert.ok(entry, 'an [mcp_servers.lectern] table');
    assert.equal(entry.url, h.mcpUrl);
    const scopes = entry.scopes as string[];
    assert.deepEqual(scopes, [...MCP_CHALLENGE_SCOPES]);
    await assertGrantedExactly(h.t, CODEX_DOCUMENT, scopes);

    const net = new HostNetwork(h.t);
    const person = new Person(h.t);
    const codex = new CodexCli(net, person, { url: entry.url as string, scopes });
    const outcome = await codex.login();
    assert.equal(outcome.error, undefined, outcome.description);
    assert.equal(outcome.attempts, 1);
    assert.deepEqual(
      net.take().filter((r) => r.startsWith('POST')),
      ['POST /api/oauth/token 200'],
    );
    const c = codex.credentials;
    assert.ok(c);
    assert.deepEqual([...c.granted].sort(), [...scopes, 'offline_access'].sort());
    assert.equal(person.consentPages.length, 1);
    assert.match(pageText(person.consentPages[0]), /Codex/);
    assert.equal((await introspect(net, c.access, c.clientId)).aud, h.mcpUrl);
    assert.ok((await toolNames(net, h.mcpUrl, c.access)).includes('courses_list'));

    // Between logins Codex refreshes: no page.
    assert.deepEqual(granted((await codex.refresh()).join(' ')), [...scopes, 'offline_access'].sort());
    assert.ok((await toolNames(net, h.mcpUrl, c.access)).includes('courses_list'));
    // A loopback callback: the next login shows the page again (RFC 8252 §8.6).
    assert.equal((await codex.login()).error, undefined);
    assert.equal(person.consentPages.length, 2);
  });
});
