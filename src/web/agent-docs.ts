/**
 * `/auth.md` (spec §1: the authentication walkthrough) and `/llms.txt` (an index for agents).
 * The walkthrough's prose lives in docs/auth.md; what the code decides (this deployment's
 * BASE_URL, the scope catalogue, the vendors, lifetimes, CIMD hosts) is filled in here, so the
 * document cannot drift from the server.
 */
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import type { Config } from '../config.ts';
import { ID_TOKEN_LIFETIME_SECONDS } from '../crypto/signing-keys.ts';
import type { AppContext, AppEnv } from '../http/context.ts';
import { CODE_LIFETIME_SECONDS } from '../oauth/authorize/codes.ts';
import { isLoopbackRedirectUri } from '../oauth/clients/redirect-uris.ts';
import { loadVendors } from '../oauth/clients/vendors.ts';
import { ACCESS_TOKEN_LIFETIME_SECONDS, REFRESH_TOKEN_LIFETIME_SECONDS } from '../oauth/grants/tokens.ts';
import { ALL_SCOPES, describeScope, MCP_CHALLENGE_SCOPES, scopeAudience } from '../oauth/scopes.ts';

const TEMPLATE_URL = new URL('../../docs/auth.md', import.meta.url);

/** A duration in words: "60 seconds", "1 hour", "30 days". */
export function duration(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} seconds`;
}

const AUDIENCE_LABEL = { both: 'both', member: 'member only', operator: 'operator' } as const;

function scopeTable(): string {
  const rows = ALL_SCOPES.map(
    (s) => `| \`${s}\` | ${AUDIENCE_LABEL[scopeAudience(s)]} | ${describeScope(s)} |`,
  );
  return ['| Scope | Audience | Grants |', '| --- | --- | --- |', ...rows].join('\n');
}

function vendorParts(config: Config) {
  const vendors = loadVendors(config);
  const code = (values: readonly string[]) => values.map((u) => `\`${u}\``).join(', ') || '—';
  const rows = vendors.map((v) => {
    // Markdown table cells: a '|' in operator-supplied names would split the cell.
    const names = [v.client_name, ...v.names.filter((n) => n !== v.client_name)]
      .join(', ')
      .replaceAll('|', '\\|');
    const uris = [...v.redirect_uris, ...v.redirect_uri_prefixes.map((p) => `${p}<id>`)];
    // Registration decides on loopback first (product.md §3): a platform whose callbacks are all
    // loopback gets a new client there, and uses its fixed client_id without registering.
    const loopback = v.redirect_uris.filter(isLoopbackRedirectUri).length;
    const registers =
      loopback === 0
        ? `\`${v.client_id}\``
        : loopback === v.redirect_uris.length
          ? `a new loopback client_id; use \`${v.client_id}\` without registering`
          : `\`${v.client_id}\`; loopback ones alone: a new loopback client_id`;
    return `| ${names} | \`${v.client_id}\` | ${code(uris)} | ${registers} | ${code(v.metadata_document_urls)} |`;
  });
  const table = [
    '| Platform (`client_name` values recognised) | client_id | Redirect URIs | Registering with these redirect URIs returns | Its own metadata-document client_id |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
  const example = vendors.find(
    (v) => v.redirect_uris.length > 0 && !v.redirect_uris.every(isLoopbackRedirectUri),
  );
  return {
    table: vendors.length > 0 ? table : 'No vendor integrations are configured on this deployment.',
    name: example?.client_name ?? 'Example Platform',
    id: example?.client_id ?? 'example-platform',
    redirect: example?.redirect_uris[0] ?? 'https://platform.example/callback',
  };
}

function cimdHosts(config: Config): string {
  if (config.cimd.openRegistration) {
    return 'Open registration is enabled on this deployment: documents on any public HTTPS host are accepted.';
  }
  if (config.cimd.allowedHosts.length === 0) {
    return "The document host must be on this server's allowlist, and this deployment allows none at the moment: documents are refused until an operator adds hosts (`CIMD_ALLOWED_HOSTS`).";
  }
  const hosts = config.cimd.allowedHosts.map((h) => `\`${h}\``).join(', ');
  return `The document host must be on this server's allowlist: ${hosts}. Any other host is rejected.`;
}

function lifetimeTable(): string {
  return [
    '| Credential | Lifetime |',
    '| --- | --- |',
    `| Authorization code | ${duration(CODE_LIFETIME_SECONDS)}, single use |`,
    `| Access token | ${duration(ACCESS_TOKEN_LIFETIME_SECONDS)} (\`expires_in\` in the token response) |`,
    `| Refresh token | ${duration(REFRESH_TOKEN_LIFETIME_SECONDS)}, replaced on every use |`,
    `| id_token | ${duration(ID_TOKEN_LIFETIME_SECONDS)} |`,
  ].join('\n');
}

/** The walkthrough for this deployment: every placeholder of docs/auth.md filled in. */
function renderAuthMarkdown(config: Config, template = readFileSync(TEMPLATE_URL, 'utf8')): string {
  const vendor = vendorParts(config);
  const values: Record<string, string> = {
    '{{scope_table}}': scopeTable(),
    '{{vendor_table}}': vendor.table,
    '{{vendor_example_name}}': vendor.name,
    '{{vendor_example_id}}': vendor.id,
    '{{vendor_example_redirect}}': vendor.redirect,
    '{{cimd_hosts}}': cimdHosts(config),
    '{{lifetime_table}}': lifetimeTable(),
    '{{code_lifetime}}': duration(CODE_LIFETIME_SECONDS),
    '{{id_token_lifetime}}': duration(ID_TOKEN_LIFETIME_SECONDS),
    '{{access_token_seconds}}': String(ACCESS_TOKEN_LIFETIME_SECONDS),
    '{{operator_default_scopes}}': MCP_CHALLENGE_SCOPES.join(' '),
    // The same list as a TOML / JSON array (section 7's host configurations).
    '{{operator_default_scopes_list}}': `[${MCP_CHALLENGE_SCOPES.map((s) => JSON.stringify(s)).join(', ')}]`,
    '{base_url_encoded}': encodeURIComponent(config.baseUrl),
    '{base_url}': config.baseUrl,
  };
  let text = template;
  for (const [placeholder, value] of Object.entries(values)) text = text.replaceAll(placeholder, value);
  return text;
}

/** The hosts of /auth.md section 7 and their headings' anchors. */
const HOST_SECTIONS: readonly (readonly [string, string])[] = [
  ['Claude (claude.ai and Claude Code)', 'claude-claudeai-and-claude-code'],
  ['ChatGPT', 'chatgpt'],
  ['Cursor', 'cursor'],
  ['VS Code', 'vs-code'],
  ['Codex CLI', 'codex-cli'],
  ['Gemini CLI', 'gemini-cli'],
  ['Windsurf', 'windsurf'],
];

/** `/llms.txt` (llmstxt.org): where an agent finds what it needs to authenticate and call. */
function renderLlmsTxt(config: Config): string {
  const b = config.baseUrl;
  return `# Lectern

> Online course schools on one origin, ${b}: an OAuth 2.0 / OpenID Connect authorization server (authorization code + PKCE S256), an admin REST API for school operators, an Account GraphQL API for members, and an MCP endpoint.

Start with the authentication walkthrough: it says how to obtain a client_id, which scopes exist and which audience may use them. Registered, loopback and metadata-document clients act for school operators; a member's own data needs the client_id of a member app the school created. Ask for no scope to get your client's default. The agent-authentication extension (identity assertion, claim ceremony) is not supported.

## Docs

- [Authentication walkthrough](${b}/auth.md): discover, obtain a client_id, authorize, exchange, call, refresh, revoke, as operator, member and MCP walkthroughs whose commands run as written; scopes, errors, id_token verification.
- [Admin API (OpenAPI 3.1)](${b}/openapi.json): operator operations, each with its required scope.
- [Account API schema (GraphQL SDL)](${b}/account/graphql/schema.graphql): a member's own data; POST ${b}/account/graphql.
- [MCP endpoint](${b}/mcp): Streamable HTTP; anonymous public tools without a token, more with one.

## AI hosts

Each connects to ${b}/mcp; its part of the walkthrough says what to add, what the person sees and which scopes to configure where the host would ask for all of them.

${HOST_SECTIONS.map(([name, anchor]) => `- [${name}](${b}/auth.md#${anchor})`).join('\n')}

## Discovery

- [Authorization-server metadata](${b}/.well-known/oauth-authorization-server)
- [OpenID Connect discovery](${b}/.well-known/openid-configuration)
- [Protected-resource metadata](${b}/.well-known/oauth-protected-resource)
- [JSON Web Key Set](${b}/jwks.json)
`;
}

/** GET /auth.md and GET /llms.txt, rendered once per app (the inputs are fixed at start). */
export function createAgentDocsApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  let auth: string | undefined;
  let llms: string | undefined;
  const headers = (type: string) => ({
    'Content-Type': `${type}; charset=utf-8`,
    'Cache-Control': 'public, max-age=300',
    'Access-Control-Allow-Origin': '*',
  });
  app.get('/auth.md', (c) => {
    auth ??= renderAuthMarkdown(ctx.config);
    return c.body(auth, 200, headers('text/markdown'));
  });
  app.get('/llms.txt', (c) => {
    llms ??= renderLlmsTxt(ctx.config);
    return c.body(llms, 200, headers('text/plain'));
  });
  return app;
}
