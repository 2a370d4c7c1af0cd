import { createReadStream, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { CONSOLE_PATHS, DOCS_CLIENT_ID } from '../oauth/clients/console-clients.ts';
import { OPERATOR_SCOPES } from '../oauth/scopes.ts';

// Served from the installed package, never a CDN: the reference works offline and under a CSP.
const require = createRequire(import.meta.url);
const SCALAR_BUNDLE = require.resolve('@scalar/api-reference/browser/standalone.js');

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Scalar sets element styles at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lectern Admin API reference</title>
</head>
<body>
<noscript>The interactive reference needs JavaScript; the raw description is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<div id="app"></div>
<script src="/docs/scalar.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;

/**
 * Scalar's settings. Everything that would phone home (AI agent, telemetry, web fonts, request
 * proxy) is off. "Authorize" works out of the box: the first-party console client, PKCE S256,
 * back to this page, every operator scope ticked (the consent page lists them; untick to narrow).
 * Scalar sends the client as HTTP Basic `client_id:` (empty password), which the token endpoint
 * takes as a public client naming itself (client-auth.ts).
 */
function initScript(baseUrl: string): string {
  const config = {
    url: '/openapi.json',
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    showDeveloperTools: 'never',
    documentDownloadType: 'json',
    persistAuth: false,
    authentication: {
      preferredSecurityScheme: 'oauth2',
      securitySchemes: {
        oauth2: {
          flows: {
            authorizationCode: {
              'x-scalar-client-id': DOCS_CLIENT_ID,
              'x-scalar-redirect-uri': baseUrl + CONSOLE_PATHS.docs,
              'x-usePkce': 'SHA-256',
              selectedScopes: [...OPERATOR_SCOPES],
            },
          },
        },
      },
    },
  };
  return `Scalar.createApiReference('#app', ${JSON.stringify(config)});\n`;
}

/** `/docs`: the rendered API reference (Scalar's standalone bundle, self-hosted, CSP-locked). */
export function registerDocs(app: Hono<AppEnv>, baseUrl: string): void {
  const init = initScript(baseUrl);
  app.get('/docs', (c) => c.html(PAGE, 200, { 'Content-Security-Policy': CSP, 'Cache-Control': 'no-cache' }));
  app.get('/docs/init.js', (c) =>
    c.body(init, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }),
  );
  app.get('/docs/scalar.js', (c) => {
    const size = statSync(SCALAR_BUNDLE).size;
    const stream = Readable.toWeb(createReadStream(SCALAR_BUNDLE)) as ReadableStream<Uint8Array>;
    return c.body(stream, 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Content-Length': String(size),
      'Cache-Control': 'public, max-age=86400',
    });
  });
}
