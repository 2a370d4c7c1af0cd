/**
 * VS Code (stable and Insiders) signing in to Lectern as its source does it (microsoft/vscode):
 * the MCP HTTP handle (src/vs/workbench/api/common/extHostMcp.ts, McpHTTPHandle) starts without a
 * token and on a 401 builds its auth metadata (createAuthMetadata): the challenge's
 * `resource_metadata` and `scope`, fetchResourceMetadata (src/vs/base/common/oauth.ts) with its
 * resource check (a mismatch is only a warning: VS Code then sends no `resource`), then the
 * authorization-server metadata. The scopes are the challenge's, else the resource document's,
 * else every `scopes_supported` of the authorization server
 * (src/vs/workbench/api/browser/mainThreadMcp.ts). It registers with fetchDynamicRegistration
 * (client_name = the product's appName, four redirect URIs), signs in over the loopback flow at
 * http://127.0.0.1:33418/ and sends `resource` at the token endpoint and on refresh
 * (src/vs/workbench/api/common/extHostAuthentication.ts, DynamicAuthProvider).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MCP_CHALLENGE_SCOPES } from '../../src/oauth/scopes.ts';
import {
  assertErrorDescriptionCharset,
  bearerParams,
  granted,
  HostNetwork,
  type HostWorld,
  introspect,
  jsonRpc,
  Person,
  pageText,
  pkcePair,
  randomState,
  startHostWorld,
  tokens,
  toolNames,
} from './support.ts';

const LATEST_PROTOCOL_VERSION = '2025-11-25';
const DEFAULT_AUTH_FLOW_PORT = 33418;

/** fetchDynamicRegistration's request body, for a product whose appName is `clientName`. */
function registrationBody(clientName: string, metadata: Record<string, unknown>, scopes?: string[]) {
  const grantTypesSupported = [
    'authorization_code',
    'refresh_token',
    'urn:ietf:params:oauth:grant-type:device_code',
  ];
  const supported = metadata.grant_types_supported as string[] | undefined;
  return JSON.parse(
    JSON.stringify({
      client_name: clientName,
      client_uri: 'https://code.visualstudio.com',
      grant_types: supported ? supported.filter((g) => grantTypesSupported.includes(g)) : grantTypesSupported,
      response_types: ['code'],
      redirect_uris: [
        'https://insiders.vscode.dev/redirect',
        'https://vscode.dev/redirect',
        'http://127.0.0.1/',
        `http://127.0.0.1:${DEFAULT_AUTH_FLOW_PORT}/`,
      ],
      scope: scopes?.join(' '),
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    }),
  ) as Record<string, unknown>;
}

/** VS Code's window: one MCP server definition, its dynamic auth provider and its sessions. */
class VsCode {
  readonly net: HostNetwork;
  readonly person: Person;
  readonly appName: string;
  readonly mcpUrl: string;
  warnings: string[] = [];
  clientId?: string;
  session?: { access: string; refresh: string; scopes: string[] };
  auth?: {
    serverMetadata: Record<string, unknown>;
    resourceMetadata?: { resource: string; scopes_supported?: string[] };
    scopes?: string[];
  };
  authorizationUrls: URL[] = [];
  lastOutcome?: { error?: string; description?: string };

  constructor(net: HostNetwork, person: Person, mcpUrl: string, appName = 'Visual Studio Code') {
    this.net = net;
    this.person = person;
    this.mcpUrl = mcpUrl;
    this.appName = appName;
  }

  /** McpHTTPHandle._sendStreamableHttp through _fetchWithAuthRetry. */
  async send(message: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
    const post = () =>
      this.net.fetch(this.mcpUrl, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'text/event-stream, application/json',
          'MCP-Protocol-Version': '2025-06-18',
          ...(this.session ? { Authorization: `Bearer ${this.session.access}` } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
      });
    let res = await post();
    if ((res.status === 401 || res.status === 403) && !this.auth) {
      await this.createAuthMetadata(res);
      await this.addAuthHeader();
      if (this.session) res = await post();
    }
    return { status: res.status, body: res.status === 200 || res.status >= 400 ? await jsonRpc(res) : {} };
  }

  /** fetchResourceMetadata: the challenge's URL, else the path-suffixed then the root well-known URL. */
  private async fetchResourceMetadata(challengeUrl: string | undefined) {
    const target = new URL(this.mcpUrl);
    const root = `${target.origin}/.well-known/oauth-protected-resource`;
    const urls = challengeUrl
      ? [challengeUrl]
      : target.pathname === '/'
        ? [root]
        : [`${root}${target.pathname}`, root];
    const errors: string[] = [];
    for (const url of urls) {
      const headers: Record<string, string> = { Accept: 'application/json' };
      if (new URL(url).origin === target.origin) headers['MCP-Protocol-Version'] = LATEST_PROTOCOL_VERSION;
      const res = await this.net.fetch(url, { headers });
      if (res.status !== 200) {
        errors.push(`Failed to fetch resource metadata from ${url}: ${res.status}`);
        continue;
      }
      const body = (await res.json()) as {
        resource: string;
        scopes_supported?: string[];
        authorization_servers?: string[];
      };
      // RFC 9728 §3.3, as VS Code compares it: both normalised by the URL constructor.
      const prm = new URL(body.resource).toString();
      const wanted = target.toString();
      if (prm !== wanted)
        throw new Error(
          `Protected Resource Metadata resource property value "${prm}" does not match target server url "${wanted}"`,
        );
      return body;
    }
    throw new Error(errors.join('; '));
  }

  /** fetchAuthorizationServerMetadata: path insertion for OAuth, then OpenID insertion, then addition. */
  private async fetchAuthorizationServerMetadata(server: string) {
    const extra = new URL(server).pathname === '/' ? '' : new URL(server).pathname;
    for (const url of [
      new URL('/.well-known/oauth-authorization-server', server).toString() + extra,
      new URL('/.well-known/openid-configuration', server).toString() + extra,
      server.endsWith('/')
        ? `${server}.well-known/openid-configuration`
        : `${server}/.well-known/openid-configuration`,
    ]) {
      const res = await this.net.fetch(url, {
        headers: { 'MCP-Protocol-Version': LATEST_PROTOCOL_VERSION, Accept: 'application/json' },
      });
      if (res.status === 200) return (await res.json()) as Record<string, unknown>;
    }
    throw new Error('no authorization-server metadata');
  }

  /** createAuthMetadata. */
  private async createAuthMetadata(res: Response): Promise<void> {
    const challenge = bearerParams(res.headers.get('www-authenticate'));
    const challenged = challenge.scope?.split(' ').filter((s) => s.trim().length);
    let scopes: string[] | undefined = challenged?.length ? challenged : undefined;
    let resourceMetadata:
      | { resource: string; scopes_supported?: string[]; authorization_servers?: string[] }
      | undefined;
    let serverMetadataUrl: string | undefined;
    try {
      resourceMetadata = await this.fetchResourceMetadata(challenge.resource_metadata);
      serverMetadataUrl = resourceMetadata.authorization_servers?.[0];
      scopes ??= resourceMetadata.scopes_supported;
    } catch (e) {
      // A warning: the sign-in goes on without the resource document, so without `resource`.
      this.warnings.push(`Could not fetch resource metadata: ${String(e)}`);
      resourceMetadata = undefined;
    }
    const baseUrl = new URL(this.mcpUrl).origin;
    const serverMetadata = await this.fetchAuthorizationServerMetadata(serverMetadataUrl ?? baseUrl);
    this.auth = { serverMetadata, resourceMetadata, scopes };
  }

  /** $getTokenFromServerMetadata: the scopes, the provider (registering once), the session. */
  private async addAuthHeader(): Promise<void> {
    const auth = this.auth;
    assert.ok(auth);
    const scopes =
      auth.scopes ??
      auth.resourceMetadata?.scopes_supported ??
      (auth.serverMetadata.scopes_supported as string[]) ??
      [];
    if (!this.clientId) {
      const res = await this.net.postJson(
        auth.serverMetadata.registration_endpoint as string,
        registrationBody(this.appName, auth.serverMetadata, auth.resourceMetadata?.scopes_supported),
      );
      const text = await res.text();
      assert.equal(res.status, 201, text);
      this.clientId = (JSON.parse(text) as { client_id: string }).client_id;
    }
    // The person allows "The MCP Server Definition … wants to authenticate", then the loopback flow.
    this.lastOutcome = await this.createSession(scopes);
  }

  /** DynamicAuthProvider's loopback flow (node extension host), then the code exchange. */
  async createSession(scopes: string[]): Promise<{ error?: string; description?: string }> {
    const auth = this.auth;
    assert.ok(auth && this.clientId);
    const { verifier, challenge } = pkcePair();
    const url = new URL(auth.serverMetadata.authorization_endpoint as string);
    url.searchParams.append('client_id', this.clientId);
    url.searchParams.append('response_type', 'code');
    url.searchParams.append('code_challenge', challenge);
    url.searchParams.append('code_challenge_method', 'S256');
    if (scopes.join(' ')) url.searchParams.append('scope', scopes.join(' '));
    if (auth.resourceMetadata?.resource) url.searchParams.append('resource', auth.resourceMetadata.resource);
    const redirectUri = `http://127.0.0.1:${DEFAULT_AUTH_FLOW_PORT}/`;
    const state = randomState();
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('state', state);
    this.authorizationUrls.push(url);
    const callback = await this.person.authorize(url.toString());
    assert.equal(`${callback.origin}${callback.pathname}`, redirectUri);
    const error = callback.searchParams.get('error');
    if (error) return { error, description: callback.searchParams.get('error_description') ?? undefined };
    assert.equal(callback.searchParams.get('state'), state);
    const answer = await tokens(
      await this.net.postForm(auth.serverMetadata.token_endpoint as string, {
        client_id: this.clientId,
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        redirect_uri: redirectUri,
        code_verifier: verifier,
        resource: auth.resourceMetadata?.resource,
      }),
    );
    this.session = { access: answer.access_token, refresh: answer.refresh_token, scopes };
    return {};
  }

  /** getSessions near expiry: exchangeRefreshTokenForToken, with `resource`. */
  async refresh(): Promise<string> {
    assert.ok(this.auth && this.session && this.clientId);
    const answer = await tokens(
      await this.net.postForm(this.auth.serverMetadata.token_endpoint as string, {
        client_id: this.clientId,
        grant_type: 'refresh_token',
        refresh_token: this.session.refresh,
        resource: this.auth.resourceMetadata?.resource,
      }),
    );
    this.session = { ...this.session, access: answer.access_token, refresh: answer.refresh_token };
    return answer.scope;
  }
}

describe('VS Code', () => {
  let h: HostWorld;
  before(async () => {
    h = await startHostWorld();
  });
  after(() => h.close());

  for (const appName of ['Visual Studio Code', 'Visual Studio Code - Insiders']) {
    it(`${appName}: its real registration body (four redirect URIs) registers as the vscode integration`, async () => {
      const net = new HostNetwork(h.t);
      const metadata = await net.getJson(`${h.base}/.well-known/oauth-authorization-server`);
      const res = await net.postJson(
        metadata.registration_endpoint as string,
        registrationBody(appName, metadata),
      );
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(res.status, 201, JSON.stringify(body));
      assert.equal(body.client_id, 'vscode');
      assert.equal(body.token_endpoint_auth_method, 'none');
    });
  }

  it('how_to_authenticate as operator: 401 with the operator default, the /mcp document (resource check passes), registration, one consent, the call retried; refresh with resource; the next sign-in shows consent again', async () => {
    const net = new HostNetwork(h.t);
    const person = new Person(h.t);
    const code = new VsCode(net, person, h.mcpUrl);
    assert.equal((await code.send({ method: 'tools/list' })).status, 200, 'anonymous: the public tools');
    net.take();
    const call = {
      method: 'tools/call',
      params: { name: 'how_to_authenticate', arguments: { sign_in: true, as: 'operator' } },
    };
    const answer = await code.send(call);
    assert.deepEqual(net.take(), [
      'POST /mcp 401',
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /api/oauth/register 201',
      'POST /api/oauth/token 200',
      'POST /mcp 200',
    ]);
    assert.deepEqual(code.warnings, [], 'the resource document names BASE_URL/mcp');
    assert.equal(code.clientId, 'vscode');
    const asked = code.authorizationUrls[0];
    assert.deepEqual(asked.searchParams.get('scope')?.split(' '), [...MCP_CHALLENGE_SCOPES]);
    assert.equal(asked.searchParams.get('resource'), h.mcpUrl);
    // The retried call went through, signed in.
    assert.equal(answer.status, 200);
    const result = answer.body.result as { isError?: boolean };
    assert.ok(result && !result.isError, JSON.stringify(answer.body));
    assert.ok((await toolNames(net, h.mcpUrl, code.session?.access)).includes('courses_list'));
    assert.equal(person.consentPages.length, 1);
    assert.match(pageText(person.consentPages[0]), /Visual Studio Code/);
    assert.equal((await introspect(net, code.session?.access ?? '', 'vscode')).aud, h.mcpUrl);

    assert.deepEqual(granted(await code.refresh()), [...MCP_CHALLENGE_SCOPES].sort());
    assert.equal(person.consentPages.length, 1, 'a refresh shows nothing');
    // Signing in again (another window, after signing out): the loopback callback sees consent again.
    assert.equal((await code.createSession([...MCP_CHALLENGE_SCOPES])).error, undefined);
    assert.equal(person.consentPages.length, 2);
  });

  it('a challenge naming no scope: VS Code asks for every scopes_supported and gets invalid_scope naming the VS Code guide', async () => {
    const net = new HostNetwork(h.t);
    const person = new Person(h.t);
    const code = new VsCode(net, person, h.mcpUrl, 'Visual Studio Code - Insiders');
    await code.send({
      method: 'tools/call',
      params: { name: 'how_to_authenticate', arguments: { sign_in: true } },
    });
    const asked = code.authorizationUrls[0].searchParams.get('scope')?.split(' ') ?? [];
    assert.ok(asked.includes('account:read'), asked.join(' '));
    const outcome = code.lastOutcome ?? {};
    assert.equal(outcome.error, 'invalid_scope');
    assert.ok(outcome.description?.includes(`${h.base}/auth.md#vs-code`), outcome.description);
    assertErrorDescriptionCharset(outcome.description ?? '');
    assert.equal(code.session, undefined);
    assert.equal(person.consentPages.length, 0);
  });
});
