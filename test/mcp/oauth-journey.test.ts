import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  Client,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { DEMO_MEMBER_APP_ID, seedDemoData } from '../../src/domain/demo-seed.ts';
import { findSchoolBySubdomain } from '../../src/domain/schools.ts';
import { MCP_CHALLENGE_SCOPES } from '../../src/oauth/scopes.ts';
import { authorizeInBrowser, Browser } from '../support/oauth-flow.ts';
import { type LiveApp, startLiveApp } from './harness.ts';

/**
 * The client SDK's OAuth provider, with the test playing the user's browser: when the SDK sends
 * the user to the authorization endpoint, the test signs in and consents through the real
 * /login and consent forms, and keeps the code the redirect URI received.
 */
class BrowserPlayingProvider implements OAuthClientProvider {
  readonly browser: Browser;
  readonly user: string;
  readonly redirectUri = `http://127.0.0.1:${40000 + Math.floor(Math.random() * 20000)}/callback`;
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrls: URL[] = [];
  consentPages: string[] = [];
  private pendingCallback?: URLSearchParams;
  private discovery?: OAuthDiscoveryState;
  private lastState?: string;
  registrations = 0;

  constructor(browser: Browser, user: string, clientId?: string) {
    this.browser = browser;
    this.user = user;
    // A member app's client_id is handed over by the school's operator (spec §5.2 item 5).
    if (clientId)
      this.info = { client_id: clientId, issuer: browser.t.config.baseUrl } as OAuthClientInformationMixed;
  }

  get redirectUrl(): string {
    return this.redirectUri;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Lectern MCP test agent',
      redirect_uris: [this.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    } as OAuthClientMetadata;
  }

  state(): string {
    this.lastState = randomBytes(12).toString('base64url');
    return this.lastState;
  }

  clientInformation() {
    return this.info;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.registrations++;
    this.info = info;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url);
    const { location, consentPage } = await authorizeInBrowser(this.browser, url.toString(), {
      user: this.user,
    });
    if (consentPage) this.consentPages.push(consentPage);
    assert.equal(`${location.origin}${location.pathname}`, this.redirectUri);
    assert.equal(location.searchParams.get('state'), this.lastState);
    assert.ok(location.searchParams.get('code'), `no code in ${location}`);
    this.pendingCallback = location.searchParams;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState() {
    return this.discovery;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    assert.ok(this.verifier);
    return this.verifier;
  }

  /** What the redirect URI received (code, state, iss): the SDK checks iss (RFC 9207). */
  takeCallback(): URLSearchParams {
    const params = this.pendingCallback;
    assert.ok(params, 'the browser brought back no code');
    this.pendingCallback = undefined;
    return params;
  }
}

type Text = Array<{ type: string; text: string }>;

/** The scopes an authorization URL asked for; the SDK adds offline_access when the AS lists it. */
function askedScopes(url: URL): string[] {
  return (url.searchParams.get('scope') ?? '')
    .split(' ')
    .filter((s) => s && s !== 'offline_access')
    .sort();
}

/** Calls a tool; on the SDK's "finish the redirect" signal, hands it the code and calls again. */
async function callWithAuth(
  client: Client,
  transport: StreamableHTTPClientTransport,
  provider: BrowserPlayingProvider,
  name: string,
  args: Record<string, unknown>,
) {
  try {
    return await client.callTool({ name, arguments: args });
  } catch (err) {
    assert.ok(err instanceof UnauthorizedError, `expected the SDK to ask for authorization, got ${err}`);
    await transport.finishAuth(provider.takeCallback());
    return client.callTool({ name, arguments: args });
  }
}

describe("an agent's whole journey with the client SDK's OAuth support", () => {
  let live: LiveApp;
  let requests: Array<{ method: string; path: string; status: number; auth: boolean }>;
  let loggingFetch: typeof fetch;
  before(async () => {
    live = await startLiveApp();
    await seedDemoData(live.t.runtime.db);
    requests = [];
    loggingFetch = async (input, init) => {
      const res = await fetch(input, init);
      const url = new URL(input instanceof Request ? input.url : String(input));
      const auth = new Headers(init?.headers).has('authorization');
      requests.push({ method: init?.method ?? 'GET', path: url.pathname, status: res.status, auth });
      return res;
    };
  });
  after(() => live.close());

  it('operator: anonymous → 401 → discovery → loopback registration → consent → token → tools → step-up on 403', async () => {
    const provider = new BrowserPlayingProvider(new Browser(live.t), 'owner@example.com');
    const transport = new StreamableHTTPClientTransport(live.mcpUrl, {
      authProvider: provider,
      fetch: loggingFetch,
    });
    const client = new Client(
      { name: 'journey-agent', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(transport);
    assert.equal(transport.protocolVersion, '2026-07-28');

    // Anonymous first: only the public tools.
    const anonymous = await client.listTools();
    assert.deepEqual(anonymous.tools.map((t) => t.name).sort(), [
      'get_course_outline',
      'how_to_authenticate',
      'list_upcoming_events',
      'search_courses',
    ]);
    const catalogue = await client.callTool({ name: 'search_courses', arguments: { school: 'demo' } });
    assert.equal(catalogue.isError, undefined);

    // A protected tool: 401 → the SDK discovers, registers, authorizes (browser), we finish.
    requests.length = 0;
    const coupons = await callWithAuth(client, transport, provider, 'coupons_list', {});
    assert.equal(coupons.isError, undefined, JSON.stringify(coupons));
    assert.ok(Array.isArray((coupons.structuredContent as { data: unknown[] }).data));
    const paths = requests.map((r) => `${r.method} ${r.path} ${r.status}`);
    assert.equal(paths[0], 'POST /mcp 401');
    assert.ok(paths.includes('GET /.well-known/oauth-protected-resource 200'), paths.join('\n'));
    assert.ok(
      paths.some((p) =>
        /^GET \/\.well-known\/(oauth-authorization-server|openid-configuration) 200$/.test(p),
      ),
      paths.join('\n'),
    );
    assert.ok(paths.includes('POST /api/oauth/register 201'), paths.join('\n'));
    assert.ok(paths.includes('POST /api/oauth/token 200'), paths.join('\n'));
    assert.equal(paths[paths.length - 1], 'POST /mcp 200');
    assert.equal(provider.registrations, 1);
    assert.match(provider.info?.client_id ?? '', /.+/);

    // The authorization request asked for the challenge's scopes, bound to this resource.
    const authorize = provider.authorizationUrls[0];
    assert.equal(authorize.origin + authorize.pathname, `${live.baseUrl}/oauth/authorize`);
    assert.deepEqual(askedScopes(authorize), [...MCP_CHALLENGE_SCOPES].sort());
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.match(authorize.searchParams.get('resource') ?? '', new RegExp(`^${live.baseUrl}/?$`));
    assert.match(provider.consentPages[0] ?? '', /Lectern MCP test agent/);

    // With the token: the read tools its scopes allow, no write tool.
    const listed = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(listed.includes('coupons_list'));
    assert.ok(!listed.includes('coupons_create'));

    // Step-up: a write tool answers 403 insufficient_scope; the SDK re-authorizes with the union.
    const created = await callWithAuth(client, transport, provider, 'coupons_create', {
      code: 'AGENT10',
      kind: 'percent',
      percent_off: 10,
    });
    assert.equal(created.isError, undefined, JSON.stringify(created));
    assert.equal((created.structuredContent as { code: string }).code, 'AGENT10');
    const stepUp = provider.authorizationUrls[1];
    const stepUpScopes = askedScopes(stepUp);
    assert.ok(stepUpScopes.includes('coupons:write'), stepUp.toString());
    assert.ok(stepUpScopes.includes('courses:read'), 'the step-up keeps the scopes already granted');
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'coupons_create'));
    assert.equal(provider.registrations, 1, 'the registered client is reused for the step-up');
    await client.close();
  });

  it('member: a member app client_id → 401 asking for account:read → consent → my tools → step-up to account:write', async () => {
    const provider = new BrowserPlayingProvider(
      new Browser(live.t),
      'student@example.com',
      DEMO_MEMBER_APP_ID,
    );
    const transport = new StreamableHTTPClientTransport(live.mcpUrl, {
      authProvider: provider,
      fetch: loggingFetch,
    });
    const client = new Client({ name: 'member-agent', version: '1.0.0' });
    await client.connect(transport);
    assert.equal(transport.protocolVersion, '2025-11-25');

    const mine = await callWithAuth(client, transport, provider, 'my_courses', {});
    assert.equal(mine.isError, undefined, JSON.stringify(mine));
    const enrollments = (mine.structuredContent as { enrollments: Array<{ course: { slug: string } }> })
      .enrollments;
    assert.ok(enrollments.length > 0, 'the demo student is enrolled in courses');
    assert.equal(provider.registrations, 0, 'a member app is not registered, it is given');
    const first = provider.authorizationUrls[0];
    assert.deepEqual(askedScopes(first), ['account:read', 'openid']);

    const demo = await findSchoolBySubdomain(live.t.runtime.db, 'demo');
    assert.ok(demo);
    const events = await client.callTool({ name: 'list_upcoming_events', arguments: { school: 'demo' } });
    const upcoming = (events.structuredContent as { events: Array<{ id: string }> }).events;
    assert.ok(upcoming.length > 0, 'the demo school has upcoming public events');

    const registered = await callWithAuth(client, transport, provider, 'register_for_event', {
      eventId: upcoming[upcoming.length - 1].id,
    });
    assert.equal(registered.isError, undefined, (registered.content as Text)[0]?.text);
    assert.deepEqual(askedScopes(provider.authorizationUrls[1]), ['account:read', 'account:write', 'openid']);
    await client.close();
  });
});
