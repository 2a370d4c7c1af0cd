import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import { listPublicSchools, type PublicSchoolEntry } from '../domain/catalog/public-catalogue.ts';
import type { AppContext, AppEnv } from '../http/context.ts';
import { prefersHtml } from '../http/negotiation.ts';
import { sendPage } from './layout.ts';

/** Where a newcomer goes from the front page: each link with what it is for. */
const LINKS = [
  { href: '/login', label: 'Sign in', purpose: 'to your account, or to your school’s admin area' },
  { href: '/docs', label: 'Admin API reference', purpose: 'the REST API for school operators (OpenAPI)' },
  { href: '/auth.md', label: 'Authentication guide', purpose: 'how apps and agents sign in with OAuth 2.1' },
  {
    href: '/account/graphql',
    label: 'GraphiQL',
    purpose: 'explore the Account GraphQL API for members',
  },
] as const;

/** How many schools the front page lists (those with a public catalogue, by name). */
const SCHOOLS_SHOWN = 100;

function schoolList(schools: readonly PublicSchoolEntry[]) {
  if (schools.length === 0) return html`<p>No school has published a course yet.</p>`;
  return html`<ul>
${schools.map((s) => html`<li><a href="/schools/${s.subdomain}/">${s.name}</a></li>`)}
</ul>`;
}

function landingBody(issuer: string, schools: readonly PublicSchoolEntry[]) {
  return html`<h1>Lectern</h1>
<p>This is the Lectern deployment at <strong>${issuer}</strong>: the sign-in service, APIs and agent
endpoint of an online course platform. It is the OAuth 2.1 / OpenID Connect issuer
<code>${issuer}</code>.</p>
<h2>Schools</h2>
${schoolList(schools)}
<h2>Where to go</h2>
<ul>
${LINKS.map((l) => html`<li><a href="${l.href}">${l.label}</a>: ${l.purpose}</li>`)}
</ul>
<p class="muted">Agents: <a href="/llms.txt">/llms.txt</a> · MCP at <code>${issuer}/mcp</code> ·
discovery at <a href="/.well-known/oauth-authorization-server">/.well-known/oauth-authorization-server</a></p>`;
}

/** The small JSON index non-browser clients get at `/`. */
function landingIndex(issuer: string) {
  return {
    service: 'lectern',
    issuer,
    links: {
      login: `${issuer}/login`,
      api_reference: `${issuer}/docs`,
      openapi: `${issuer}/openapi.json`,
      auth_guide: `${issuer}/auth.md`,
      graphql: `${issuer}/account/graphql`,
      mcp: `${issuer}/mcp`,
      llms_txt: `${issuer}/llms.txt`,
      authorization_server_metadata: `${issuer}/.well-known/oauth-authorization-server`,
    },
  };
}

/**
 * The HTML 404 a browser gets for an address no route answers (API clients keep the
 * problem+json 404; app.ts chooses by the Accept header).
 */
export function notFoundPage(c: Context): Promise<Response> {
  const body = html`<h1>Page not found</h1>
<div class="notice error" role="alert"><p>There is no page at <code>${c.req.path}</code>.</p></div>
<p>Check the address, or start from the <a href="/">front page</a> or <a href="/login">sign in</a>.</p>`;
  return sendPage(c, 404, 'Page not found', body);
}

/** Whether this request is a browser asking for a page (Accept prefers HTML). */
export function wantsPage(c: Context): boolean {
  return prefersHtml(c.req.header('accept'));
}

/** `GET /`: a landing page for browsers, a small JSON index for everyone else. */
export function createLandingApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const issuer = ctx.config.baseUrl;
  app.get('/', async (c) => {
    // Vary: one URL, two representations; a cache must not hand the page to an API client.
    c.header('Vary', 'Accept');
    if (wantsPage(c)) {
      const { schools } = await listPublicSchools(ctx.db, undefined, { limit: SCHOOLS_SHOWN });
      return sendPage(c, 200, 'Welcome', landingBody(issuer, schools));
    }
    return c.json(landingIndex(issuer), 200, { 'Cache-Control': 'no-store' });
  });
  return app;
}
