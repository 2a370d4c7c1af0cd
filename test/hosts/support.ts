/**
 * What the host profiles share: the test app and world, the host's HTTP client (in process,
 * recording each request so a test can assert the discovery order a host's code follows), the
 * person at the browser (signing in and counting the consent pages shown), the token and MCP
 * calls, and the configuration snippets of the served /auth.md.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { decideScopes } from '../../src/oauth/scope-policy.ts';
import { MCP_CHALLENGE_SCOPES, parseScopes } from '../../src/oauth/scopes.ts';
import { readJsonRpc } from '../mcp/harness.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { docBlocks } from '../support/doc-runner.ts';
import { authorizeInBrowser, Browser, pkcePair } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';

/** The deployment every profile talks to, and where a host adds it. */
export interface HostWorld {
  readonly t: TestApp;
  readonly world: World;
  readonly base: string;
  /** What the person adds to the host: BASE_URL/mcp. */
  readonly mcpUrl: string;
  close(): Promise<void>;
}

export async function startHostWorld(env: Record<string, string> = {}): Promise<HostWorld> {
  const t = await createTestApp(env);
  const world = await createWorld(t);
  const base = t.config.baseUrl;
  return { t, world, base, mcpUrl: `${base}/mcp`, close: () => t.close() };
}

/** One request a host sent: method, path with query, and the status it got. */
export interface Sent {
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

/**
 * The host's HTTP client. Requests go to the in-process app; each is recorded, so a test can
 * assert which well-known URLs a host fetched and in which order.
 */
export class HostNetwork {
  readonly sent: Sent[] = [];
  readonly base: string;
  private readonly t: TestApp;

  constructor(t: TestApp) {
    this.t = t;
    this.base = t.config.baseUrl;
  }

  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url, this.t.config.baseUrl);
    assert.equal(target.origin, new URL(this.t.config.baseUrl).origin, `a request off the origin: ${target}`);
    const res = await this.t.request(target.toString(), init);
    this.sent.push({
      method: init.method ?? 'GET',
      path: target.pathname + target.search,
      status: res.status,
    });
    return res;
  }

  /** `METHOD /path` of each request since the last `take()`, and forgets them. */
  take(): string[] {
    const out = this.sent.map((s) => `${s.method} ${s.path.split('?')[0]} ${s.status}`);
    this.sent.length = 0;
    return out;
  }

  async getJson(url: string, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
    const res = await this.fetch(url, { headers });
    assert.equal(res.status, 200, url);
    return (await res.json()) as Record<string, unknown>;
  }

  /** A form POST (the token endpoint). */
  postForm(url: string, fields: Record<string, string | undefined>): Promise<Response> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) body.append(k, v);
    return this.fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: body.toString(),
    });
  }

  /** A JSON POST (dynamic client registration). */
  postJson(url: string, body: unknown): Promise<Response> {
    return this.fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  }
}

/**
 * The person at the browser: signs in at /login the first time, allows at the consent page, and
 * counts the consent pages shown (a remembered consent redirects without one).
 */
export class Person {
  readonly browser: Browser;
  readonly email: string;
  readonly consentPages: string[] = [];

  constructor(t: TestApp, email = 'owner@example.com') {
    this.browser = new Browser(t);
    this.email = email;
  }

  /** Opens the authorization address a host built; returns where the browser was sent back to. */
  async authorize(url: string): Promise<URL> {
    const { location, consentPage } = await authorizeInBrowser(this.browser, url, { user: this.email });
    if (consentPage) this.consentPages.push(consentPage);
    return location;
  }
}

/** The consent page's text without markup (to find who it says is asking). */
export function pageText(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

export { pkcePair };

export const randomState = () => randomBytes(16).toString('base64url');

/** A token endpoint answer, asserted to be 200. */
export async function tokens(res: Response): Promise<{
  access_token: string;
  refresh_token: string;
  scope: string;
  expires_in: number;
  id_token?: string;
}> {
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}

/** The scopes a token answer granted, sorted. */
export const granted = (scope: string) => parseScopes(scope).sort();

/** What the introspection endpoint says of a token (its `aud` is the resource it was issued for). */
export async function introspect(net: HostNetwork, token: string, clientId: string) {
  const res = await net.postForm(`${net.base}/api/oauth/introspect`, { token, client_id: clientId });
  assert.equal(res.status, 200);
  return (await res.json()) as { active: boolean; aud?: string; scope?: string; client_id?: string };
}

/** A JSON-RPC answer of /mcp, whether it came as JSON or as one SSE `message` event. */
export { readJsonRpc as jsonRpc };

/** One MCP request as a 2025-era streamable HTTP client posts it. */
function postMcp(
  net: HostNetwork,
  mcpUrl: string,
  message: Record<string, unknown>,
  token?: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return net.fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
  });
}

/** The names of the tools /mcp lists for a token (or anonymously). */
export async function toolNames(net: HostNetwork, mcpUrl: string, token?: string): Promise<string[]> {
  const res = await postMcp(net, mcpUrl, { method: 'tools/list' }, token);
  assert.equal(res.status, 200);
  const { result } = (await readJsonRpc(res)) as { result: { tools: Array<{ name: string }> } };
  return result.tools.map((t) => t.name);
}

/** The auth-params of a `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, quoted values). */
export function bearerParams(header: string | null): Record<string, string> {
  assert.ok(header, 'no WWW-Authenticate challenge');
  assert.match(header, /^Bearer /);
  const params: Record<string, string> = {};
  for (const m of header.matchAll(/([a-z_]+)="([^"]*)"/g)) params[m[1]] = m[2];
  return params;
}

/** RFC 6749 §5.2: error_description is %x20-21 / %x23-5B / %x5D-7E (no `"` and no `\`). */
export function assertErrorDescriptionCharset(description: string): void {
  assert.match(description, /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/, description);
}

/** The section of the served /auth.md under `heading` (up to the next heading of its level or above). */
export async function authMdSection(t: TestApp, heading: string): Promise<string> {
  const text = await (await t.request('/auth.md')).text();
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `no ${heading} in /auth.md`);
  const level = heading.indexOf(' ');
  const rest = text.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return next < 0 ? rest : rest.slice(0, next);
}

/** The one fenced block of `lang` under `heading` in the served /auth.md. */
export async function authMdBlock(t: TestApp, heading: string, lang: string): Promise<string> {
  const text = await (await t.request('/auth.md')).text();
  const blocks = docBlocks(text).filter((b) => b.heading === heading && b.lang === lang);
  assert.equal(blocks.length, 1, `one ${lang} block under ${heading}`);
  return blocks[0].code;
}

/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to `-`. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    anchors.add(
      m[1]
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return anchors;
}

type TomlValue = string | boolean | number | string[];

/**
 * The TOML of a configuration snippet (TOML 1.0, the subset such snippets use): `[table.name]`
 * headers of bare keys, `key = value` with basic strings, booleans, integers and arrays of basic
 * strings (over several lines too), and `#` comments. Anything else throws, so the snippet a
 * person copies is one the host can parse.
 */
export function parseToml(text: string): Record<string, Record<string, TomlValue>> {
  const tables: Record<string, Record<string, TomlValue>> = { '': {} };
  let current = tables[''];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = stripComment(lines[i]).trim();
    if (!line) continue;
    const header = /^\[([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\]$/.exec(line);
    if (header) {
      assert.ok(!tables[header[1]], `table [${header[1]}] defined twice`);
      current = tables[header[1]] = {};
      continue;
    }
    const pair = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    assert.ok(pair, `not TOML: ${lines[i]}`);
    let value = pair[2];
    if (value.startsWith('[')) {
      while (!balanced(value)) {
        i++;
        assert.ok(i < lines.length, 'unterminated array');
        line = stripComment(lines[i]).trim();
        value += ` ${line}`;
      }
    }
    assert.ok(!(pair[1] in current), `key ${pair[1]} defined twice`);
    current[pair[1]] = tomlValue(value.trim());
  }
  return tables;
}

function stripComment(line: string): string {
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '"' && line[i - 1] !== '\\') inString = !inString;
    if (line[i] === '#' && !inString) return line.slice(0, i);
  }
  return line;
}

function balanced(value: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '"' && value[i - 1] !== '\\') inString = !inString;
    if (inString) continue;
    if (value[i] === '[') depth++;
    if (value[i] === ']') depth--;
  }
  return depth === 0;
}

function tomlValue(value: string): TomlValue {
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^[+-]?\d+$/.test(value)) return Number(value);
  if (/^"(?:[^"\\]|\\["\\nt])*"$/.test(value)) return JSON.parse(value) as string;
  const array = /^\[(.*)\]$/s.exec(value);
  assert.ok(array, `unsupported TOML value: ${value}`);
  const items = array[1]
    .split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/)
    .map((s) => s.trim())
    .filter((s, i, all) => s !== '' || i < all.length - 1);
  return items.map((item) => {
    const parsed = tomlValue(item);
    assert.equal(typeof parsed, 'string', `only arrays of strings: ${value}`);
    return parsed as string;
  });
}

/**
 * Asserts that `scopes`, asked for by `clientId`'s client, are granted exactly: each is one a
 * non-member client may have (no `account:*`), and the grant is the list as written.
 */
export async function assertGrantedExactly(t: TestApp, clientId: string, scopes: readonly string[]) {
  const { findClient } = await import('../../src/oauth/clients/clients.ts');
  const client = await findClient(t.runtime, clientId);
  assert.ok(client, clientId);
  assert.notEqual(client.kind, 'member');
  const decision = decideScopes(client, scopes.join(' '), t.config.baseUrl);
  assert.equal(decision.audience, 'operator');
  assert.deepEqual([...decision.scopes].sort(), [...new Set(scopes)].sort());
}

/**
 * A hosted connector's sign-in (claude.ai, ChatGPT): the path-suffixed resource document, whose
 * `resource` must be the server URL as entered; the authorization-server metadata, which must
 * offer metadata documents to public clients; the host's document URL as client_id with its fixed
 * callback; the scopes of the resource document (Lectern's lists none); `resource` at the
 * authorization and token endpoints; an issuer-bound answer (RFC 9207 `iss`). Returns the token
 * answer, the authorization address and a refresh as the host sends it.
 */
export async function hostedConnectorSignIn(
  h: HostWorld,
  net: HostNetwork,
  person: Person,
  clientId: string,
  callbackUrl: string,
) {
  const prm = await net.getJson(`${h.base}/.well-known/oauth-protected-resource/mcp`);
  assert.equal(prm.resource, h.mcpUrl, 'the resource must match the server URL as entered');
  const servers = prm.authorization_servers as string[];
  const as = await net.getJson(new URL('/.well-known/oauth-authorization-server', servers[0]).toString());
  assert.equal(as.client_id_metadata_document_supported, true);
  assert.ok((as.token_endpoint_auth_methods_supported as string[]).includes('none'));
  assert.equal(as.authorization_response_iss_parameter_supported, true);
  const scope = (prm.scopes_supported as string[] | undefined)?.join(' ');
  const resource = prm.resource as string;
  const { url, callback, state, verifier } = await authorizeAsHost(person, as, clientId, callbackUrl, {
    resource,
    ...(scope ? { scope } : {}),
  });
  assert.equal(`${callback.origin}${callback.pathname}`, callbackUrl);
  assert.equal(callback.searchParams.get('state'), state);
  assert.equal(callback.searchParams.get('iss'), as.issuer);
  const { answer, refresh } = await redeemCode(net, as, callback, {
    redirectUri: callbackUrl,
    clientId,
    verifier,
    resource,
    refreshResource: resource,
  });
  return { answer, url, refresh };
}

/**
 * A hosted connector's first connection (claude.ai, ChatGPT), asserted as each goes: discovery
 * then the token request, the MCP challenge scopes granted, one consent page naming the host
 * (`consentName`), a token for BASE_URL/mcp that lists `courses_list` there, and a refresh with
 * the same scopes. Returns the host's network, the person and the sign-in, to connect again.
 */
export async function firstHostedConnection(
  h: HostWorld,
  clientId: string,
  callbackUrl: string,
  consentName: RegExp,
) {
  const net = new HostNetwork(h.t);
  const person = new Person(h.t);
  const first = await hostedConnectorSignIn(h, net, person, clientId, callbackUrl);
  assert.deepEqual(net.take(), [
    'GET /.well-known/oauth-protected-resource/mcp 200',
    'GET /.well-known/oauth-authorization-server 200',
    'POST /api/oauth/token 200',
  ]);
  assert.deepEqual(granted(first.answer.scope), [...MCP_CHALLENGE_SCOPES].sort());
  assert.equal(person.consentPages.length, 1);
  assert.match(pageText(person.consentPages[0]), consentName);
  assert.equal((await introspect(net, first.answer.access_token, clientId)).aud, h.mcpUrl);
  assert.ok((await toolNames(net, h.mcpUrl, first.answer.access_token)).includes('courses_list'));
  assert.deepEqual(granted((await first.refresh()).scope), [...MCP_CHALLENGE_SCOPES].sort());
  return { net, person, first };
}

/**
 * A host that registers dynamically and signs in with the authorization code flow: discovery as
 * the MCP authorization spec orders it (the path-suffixed resource document, then the
 * authorization-server metadata), registration with `registration`, then authorization at
 * `redirectUri` with the resource document's scopes (none at Lectern) and, when `sendResource`,
 * its `resource`. Returns the client, the token answer and the authorization address.
 */
export async function registeredHostSignIn(
  h: HostWorld,
  net: HostNetwork,
  person: Person,
  registration: Record<string, unknown>,
  redirectUri: string,
  options: { sendResource: boolean; clientId?: string },
) {
  const prm = await net.getJson(`${h.base}/.well-known/oauth-protected-resource/mcp`);
  const as = await net.getJson(
    new URL('/.well-known/oauth-authorization-server', (prm.authorization_servers as string[])[0]).toString(),
  );
  let clientId = options.clientId;
  if (!clientId) {
    const res = await net.postJson(as.registration_endpoint as string, registration);
    const text = await res.text();
    assert.equal(res.status, 201, text);
    clientId = (JSON.parse(text) as { client_id: string }).client_id;
  }
  const scope = (prm.scopes_supported as string[] | undefined)?.join(' ');
  const resource = options.sendResource ? (prm.resource as string) : undefined;
  const { url, callback, state, verifier } = await authorizeAsHost(person, as, clientId, redirectUri, {
    ...(scope ? { scope } : {}),
    ...(options.sendResource ? { resource: prm.resource as string } : {}),
  });
  assert.equal(callback.href.split('?')[0], redirectUri);
  assert.equal(callback.searchParams.get('state'), state, callback.toString());
  // The refresh sends no `resource`, whether the sign-in did or not.
  const { answer, refresh } = await redeemCode(net, as, callback, {
    redirectUri,
    clientId,
    verifier,
    resource,
  });
  return { clientId, answer, url, refresh };
}

/**
 * The authorization address a host builds at the metadata's `authorization_endpoint` (PKCE S256
 * and a fresh state, then `extra` in its order), opened by the person. Returns the address, where
 * the browser was sent back to, the state and the PKCE verifier.
 */
async function authorizeAsHost(
  person: Person,
  as: Record<string, unknown>,
  clientId: string,
  redirectUri: string,
  extra: Record<string, string>,
) {
  const { verifier, challenge } = pkcePair();
  const state = randomState();
  const url = new URL(as.authorization_endpoint as string);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    ...extra,
  }))
    url.searchParams.set(k, v);
  const callback = await person.authorize(url.toString());
  return { url, callback, state, verifier };
}

/**
 * The code of `callback` exchanged at the metadata's `token_endpoint`, and a refresh as the host
 * sends it; each carries `resource` only when given (`refreshResource` for the refresh).
 */
async function redeemCode(
  net: HostNetwork,
  as: Record<string, unknown>,
  callback: URL,
  exchange: {
    redirectUri: string;
    clientId: string;
    verifier: string;
    resource?: string;
    refreshResource?: string;
  },
) {
  const answer = await tokens(
    await net.postForm(as.token_endpoint as string, {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') ?? '',
      redirect_uri: exchange.redirectUri,
      client_id: exchange.clientId,
      code_verifier: exchange.verifier,
      resource: exchange.resource,
    }),
  );
  const refresh = async () =>
    tokens(
      await net.postForm(as.token_endpoint as string, {
        grant_type: 'refresh_token',
        refresh_token: answer.refresh_token,
        client_id: exchange.clientId,
        resource: exchange.refreshResource,
      }),
    );
  return { answer, refresh };
}
