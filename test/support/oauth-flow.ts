import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { DEMO_PASSWORD } from '../../src/domain/demo/demo-seed.ts';
import type { TestApp } from './app.ts';

/** A cookie jar that plays the browser against the in-process app (redirects are not followed). */
export class Browser {
  readonly cookies = new Map<string, string>();
  readonly t: TestApp;

  constructor(t: TestApp) {
    this.t = t;
  }

  /** Sends a request with the jar's cookies and stores what the response sets. */
  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    }
    const res = await this.t.request(path, { ...init, headers });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** POSTs a form (application/x-www-form-urlencoded). */
  postForm(path: string, fields: Record<string, string> | URLSearchParams): Promise<Response> {
    const body = fields instanceof URLSearchParams ? fields : new URLSearchParams(fields);
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
  }
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};
const unescapeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (m) => ENTITIES[m]);

/**
 * Every `<input name value>` of the page's first form (or, with `action`, of the first form
 * posting there), in order, repeated names kept.
 */
export function formFields(page: string, action?: string): URLSearchParams {
  const forms = [...page.matchAll(/<form\b[^>]*>[\s\S]*?<\/form>/g)].map((m) => m[0]);
  const form = (action ? forms.find((f) => f.includes(`action="${action}"`)) : forms[0]) ?? page;
  const fields = new URLSearchParams();
  for (const m of form.matchAll(/<input\b[^>]*>/g)) {
    const name = /\sname="([^"]*)"/.exec(m[0])?.[1];
    const value = /\svalue="([^"]*)"/.exec(m[0])?.[1] ?? '';
    if (name && !/type="password"/.test(m[0]) && !/type="email"/.test(m[0])) {
      fields.append(unescapeHtml(name), unescapeHtml(value));
    }
  }
  return fields;
}

/** A PKCE verifier and its S256 challenge (RFC 7636 §4.1–§4.2). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Signs a browser in through the real /login form; returns the POST's response. */
export async function signIn(
  browser: Browser,
  email: string,
  options: { password?: string; returnTo?: string; prompt?: 'login' } = {},
): Promise<Response> {
  const query = new URLSearchParams();
  if (options.returnTo) query.set('return_to', options.returnTo);
  if (options.prompt) query.set('prompt', options.prompt);
  const page = await browser.request(`/login${query.size > 0 ? `?${query}` : ''}`);
  assert.equal(page.status, 200, 'login page');
  const fields = formFields(await page.text());
  fields.set('email', email);
  fields.set('password', options.password ?? DEMO_PASSWORD);
  return browser.postForm('/login', fields);
}

/** What a completed authorization returned to the redirect URI. */
export interface AuthorizationResult {
  readonly location: URL;
  /** The consent page HTML when one was shown. */
  readonly consentPage?: string;
}

/**
 * Plays the browser through /oauth/authorize: signs in when sent to /login, submits the consent
 * page with `decision` (and the chosen `orgId`), and returns the final redirect to the client.
 */
export async function authorizeInBrowser(
  browser: Browser,
  authorizeUrl: string,
  options: { user?: string; password?: string; decision?: 'allow' | 'deny'; orgId?: string } = {},
): Promise<AuthorizationResult> {
  const base = browser.t.config.baseUrl;
  let res = await browser.request(authorizeUrl);
  if (res.status === 302 && new URL(res.headers.get('location')!, base).pathname === '/login') {
    const loginUrl = new URL(res.headers.get('location')!, base);
    const login = await signIn(browser, options.user ?? 'student@example.com', {
      password: options.password,
      returnTo: loginUrl.searchParams.get('return_to')!,
      prompt: loginUrl.searchParams.get('prompt') === 'login' ? 'login' : undefined,
    });
    assert.equal(login.status, 303, 'login should succeed');
    res = await browser.request(login.headers.get('location')!);
  }
  if (res.status === 302) return { location: new URL(res.headers.get('location')!) };
  assert.equal(res.status, 200, `expected the consent page, got ${res.status}: ${await res.clone().text()}`);
  const page = await res.text();
  const fields = formFields(page);
  fields.set('decision', options.decision ?? 'allow');
  if (options.orgId) fields.set('org_id', options.orgId);
  const post = await browser.postForm('/oauth/authorize', fields);
  assert.equal(post.status, 303, `consent POST: ${post.status} ${await post.clone().text()}`);
  return { location: new URL(post.headers.get('location')!), consentPage: page };
}

/** Registers a loopback client through POST /api/oauth/register. */
export async function registerLoopbackClient(
  t: TestApp,
  options: {
    authMethod?: 'none' | 'client_secret_basic' | 'client_secret_post';
    redirectUris?: string[];
    name?: string;
  } = {},
): Promise<{ client_id: string; client_secret?: string }> {
  const res = await t.request('/api/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: options.name ?? 'Test CLI',
      redirect_uris: options.redirectUris ?? ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: options.authMethod ?? 'none',
      application_type: 'native',
    }),
  });
  assert.equal(res.status, 201, `register: ${await res.clone().text()}`);
  return res.json();
}

/** Options of a complete authorization code flow. */
export interface FlowOptions {
  clientId: string;
  clientSecret?: string;
  redirectUri?: string;
  /** Requested scopes; empty sends no `scope` (the client's default, RFC 6749 §3.3). */
  scopes: readonly string[];
  /** Demo user's email (default student@example.com). */
  user?: string;
  resource?: string;
  orgId?: string;
  nonce?: string;
  browser?: Browser;
}

/** The token endpoint's JSON answer. */
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  scope: string;
  id_token?: string;
}

/** Runs authorize (as the browser) and returns the code with what the exchange needs. */
export async function obtainCode(
  t: TestApp,
  options: FlowOptions,
): Promise<{ code: string; verifier: string; redirectUri: string; state: string; location: URL }> {
  const redirectUri = options.redirectUri ?? 'http://127.0.0.1:43123/callback';
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(12).toString('base64url');
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: redirectUri,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  if (options.scopes.length > 0) q.set('scope', options.scopes.join(' '));
  if (options.resource) q.set('resource', options.resource);
  if (options.nonce) q.set('nonce', options.nonce);
  if (options.orgId) q.set('org_id', options.orgId);
  const browser = options.browser ?? new Browser(t);
  const { location } = await authorizeInBrowser(browser, `/oauth/authorize?${q}`, {
    user: options.user,
    orgId: options.orgId,
  });
  const code = location.searchParams.get('code');
  assert.ok(code, `no code in ${location}`);
  assert.equal(location.searchParams.get('state'), state);
  return { code, verifier, redirectUri, state, location };
}

/** POSTs a form to the token endpoint. */
export function tokenRequest(t: TestApp, fields: Record<string, string>): Promise<Response> {
  return t.request('/api/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/**
 * A complete authorization code flow through the real endpoints: authorize, sign in, consent,
 * exchange. For tests of protected surfaces that need genuine tokens.
 */
export async function obtainTokens(t: TestApp, options: FlowOptions): Promise<TokenResponse> {
  const { code, verifier, redirectUri } = await obtainCode(t, options);
  const fields: Record<string, string> = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: options.clientId,
    code_verifier: verifier,
  };
  if (options.clientSecret) fields.client_secret = options.clientSecret;
  if (options.resource) fields.resource = options.resource;
  const res = await tokenRequest(t, fields);
  assert.equal(res.status, 200, `token: ${await res.clone().text()}`);
  return res.json();
}
