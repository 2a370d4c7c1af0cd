import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type {
  Client,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { UnauthorizedError } from '@modelcontextprotocol/client';
import { authorizeInBrowser, type Browser } from '../support/oauth-flow.ts';

/**
 * The client SDK's OAuth provider, with the test playing the user's browser: when the SDK sends
 * the user to the authorization endpoint, the test signs in and consents through the real
 * /login and consent forms, and keeps the code the redirect URI received.
 */
export class BrowserPlayingProvider implements OAuthClientProvider {
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
  /** Set for a client identified by its Client ID Metadata Document URL. */
  readonly clientMetadataUrl?: string;

  constructor(
    browser: Browser,
    user: string,
    options: { clientId?: string; clientMetadataUrl?: string } = {},
  ) {
    this.browser = browser;
    this.user = user;
    // A member app's client_id is handed over by the school's operator (spec §5.2 item 5).
    if (options.clientId) {
      this.info = { client_id: options.clientId };
    }
    this.clientMetadataUrl = options.clientMetadataUrl;
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
    this.info = info;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  /** What both SDK generations call to drop stored credentials (and what a host does by hand). */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.info = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url);
    const { location, consentPage } = await authorizeInBrowser(this.browser, url.toString(), {
      user: this.user,
    });
    if (consentPage) this.consentPages.push(consentPage);
    assert.equal(`${location.origin}${location.pathname}`, this.redirectUri);
    assert.equal(location.searchParams.get('state'), this.lastState);
    assert.ok(
      location.searchParams.get('code') ?? location.searchParams.get('error'),
      `nothing in ${location}`,
    );
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

  /** What the redirect URI received (code or error, state, iss): the SDK checks iss (RFC 9207). */
  takeCallback(): URLSearchParams {
    const params = this.pendingCallback;
    assert.ok(params, 'the browser brought back no code');
    this.pendingCallback = undefined;
    return params;
  }
}

export type Text = Array<{ type: string; text: string }>;

/** The scopes an authorization URL asked for; the SDK adds offline_access when the AS lists it. */
export function askedScopes(url: URL): string[] {
  return (url.searchParams.get('scope') ?? '')
    .split(' ')
    .filter((s) => s && s !== 'offline_access')
    .sort();
}

/** Calls a tool; on the SDK's "finish the redirect" signal, hands it the code and calls again. */
export async function callWithAuth(
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
