import { createReadStream, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';

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

// Everything that would phone home (AI agent, telemetry, web fonts, request proxy) is off.
const INIT = `Scalar.createApiReference('#app', ${JSON.stringify({
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: 'never',
  showToolbar: 'never',
  documentDownloadType: 'json',
  persistAuth: false,
})});\n`;

/** `/docs`: the rendered API reference (Scalar's standalone bundle, self-hosted, CSP-locked). */
export function registerDocs(app: Hono<AppEnv>): void {
  app.get('/docs', (c) => c.html(PAGE, 200, { 'Content-Security-Policy': CSP, 'Cache-Control': 'no-cache' }));
  app.get('/docs/init.js', (c) =>
    c.body(INIT, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }),
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
