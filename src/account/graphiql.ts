import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { html, raw } from 'hono/html';

/**
 * GraphiQL for `GET /account/graphql` in a browser, served entirely from this origin: the
 * bundle of @graphql-yoga/render-graphiql (script, stylesheet, Monaco workers) is split into
 * same-origin assets and the page loads nothing else, so no CDN and a strict CSP.
 */

export const ASSET_PREFIX = '/account/graphql/assets';

interface Asset {
  readonly body: string;
  readonly type: string;
}

interface Bundle {
  readonly assets: ReadonlyMap<string, Asset>;
  readonly version: string;
}

const BOOT = `'use strict';
(function () {
  var base = ${JSON.stringify(ASSET_PREFIX)};
  var v = document.currentScript.getAttribute('data-version');
  var workers = { editorWorkerService: 'editor', json: 'json', graphql: 'graphql' };
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) {
      return base + '/' + (workers[label] || 'editor') + '.worker.js?v=' + v;
    },
  };
  var options = JSON.parse(document.getElementById('graphiql-options').textContent);
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
})();
`;

let bundle: Promise<Bundle> | undefined;

// The bundle is ~9 MB of JavaScript: loaded on the first GraphiQL request, not at start-up.
function loadBundle(): Promise<Bundle> {
  bundle ??= import('@graphql-yoga/render-graphiql/graphiql').then((m) => {
    const js = 'application/javascript; charset=utf-8';
    const assets = new Map<string, Asset>([
      ['graphiql.js', { body: m.js, type: js }],
      ['graphiql.css', { body: m.css, type: 'text/css; charset=utf-8' }],
      ['editor.worker.js', { body: m.editorWorkerService, type: js }],
      ['json.worker.js', { body: m.jsonWorker, type: js }],
      ['graphql.worker.js', { body: m.graphqlWorker, type: js }],
      ['boot.js', { body: BOOT, type: js }],
    ]);
    const hash = createHash('sha256');
    for (const a of assets.values()) hash.update(a.body);
    return { assets, version: hash.digest('hex').slice(0, 16) };
  });
  return bundle;
}

const DEFAULT_QUERY = `# The Account API: your own data at the school your token is for.
# Put your access token in the Headers tab: {"Authorization": "Bearer <token>"}
query {
  viewer {
    id
    email
    enrolledCourses(first: 10) {
      nodes {
        slug
        expireDate
        hasLifetimeAccess
        lastWatchedLecture {
          lectureId
          positionSeconds
        }
      }
    }
  }
}
`;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The GraphiQL page: a shell that loads the same-origin assets. */
export async function graphiqlPage(c: Context): Promise<Response> {
  const { version } = await loadBundle();
  const options = JSON.stringify({
    title: 'Lectern Account API',
    defaultQuery: DEFAULT_QUERY,
    headers: JSON.stringify({ Authorization: 'Bearer <access token>' }),
    shouldPersistHeaders: false,
  }).replace(/</g, '\\u003c');
  const page = html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Lectern Account API · GraphiQL</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${ASSET_PREFIX}/graphiql.css?v=${version}" />
  </head>
  <body>
    <noscript>GraphiQL needs JavaScript. The schema is at /account/graphql/schema.graphql.</noscript>
    <div id="root" style="height: 100vh"></div>
    <script type="application/json" id="graphiql-options">${raw(options)}</script>
    <script src="${ASSET_PREFIX}/graphiql.js?v=${version}"></script>
    <script src="${ASSET_PREFIX}/boot.js?v=${version}" data-version="${version}"></script>
  </body>
</html>`;
  return c.html(page, 200, {
    'Content-Security-Policy': CSP,
    'Cache-Control': 'no-cache',
    Vary: 'Accept',
  });
}

/** One asset of the bundle; long-cached when asked for by the current version. */
export async function graphiqlAsset(c: Context): Promise<Response> {
  const { assets, version } = await loadBundle();
  const asset = assets.get(c.req.param('name') ?? '');
  if (!asset) return c.text('Not Found', 404);
  const cache = c.req.query('v') === version ? 'public, max-age=31536000, immutable' : 'no-cache';
  return c.body(asset.body, 200, { 'Content-Type': asset.type, 'Cache-Control': cache });
}
