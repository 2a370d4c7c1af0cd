import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { html, raw } from 'hono/html';
import { CONSOLE_PATHS, GRAPHIQL_CLIENT_ID } from '../oauth/clients/console-clients.ts';
import { OAUTH_PATHS } from '../oauth/metadata/discovery.ts';

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

// The page's own script: Monaco's same-origin workers, then the sign-in bar (authorization code
// with PKCE S256, RFC 7636, for the first-party GraphiQL client; the access token kept in this
// tab's sessionStorage and sent as a Bearer header, RFC 6750 §2.1), then GraphiQL itself.
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
  var signIn = JSON.parse(document.getElementById('graphiql-sign-in').textContent);
  var TOKEN = 'lectern-graphiql-token';
  var PENDING = 'lectern-graphiql-pending';
  var origin = location.origin;
  var redirectUri = origin + signIn.path;
  var status = document.getElementById('sign-in-status');
  var button = document.getElementById('sign-in');

  function say(text) { status.textContent = text; }
  function b64url(bytes) {
    var s = '';
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }
  function random() { return b64url(crypto.getRandomValues(new Uint8Array(32))); }
  function read(key) {
    try { return JSON.parse(sessionStorage.getItem(key) || 'null'); } catch (e) { return null; }
  }
  function currentToken() {
    var t = read(TOKEN);
    if (t && t.expiresAt > Date.now()) return t;
    sessionStorage.removeItem(TOKEN);
    return null;
  }

  function startSignIn() {
    if (!window.crypto || !crypto.subtle) {
      say('Signing in needs a secure page (https, or http on localhost).');
      return;
    }
    var verifier = random();
    var state = random();
    crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)).then(function (digest) {
      // GraphiQL keeps the edited query in ?query=; it comes back after the round trip.
      var edited = new URLSearchParams(location.search).get('query');
      sessionStorage.setItem(PENDING, JSON.stringify({ verifier: verifier, state: state, query: edited }));
      var query = new URLSearchParams({
        response_type: 'code',
        client_id: signIn.clientId,
        redirect_uri: redirectUri,
        scope: signIn.scope,
        state: state,
        code_challenge: b64url(new Uint8Array(digest)),
        code_challenge_method: 'S256',
        resource: origin,
      });
      location.assign(signIn.authorizationEndpoint + '?' + query.toString());
    });
  }

  // RFC 6749 §4.1.2 and RFC 9207: the answer must match this tab's state and name this issuer.
  function finishSignIn(params) {
    var pending = read(PENDING);
    sessionStorage.removeItem(PENDING);
    var back = pending && pending.query ? '?' + new URLSearchParams({ query: pending.query }) : '';
    history.replaceState(null, '', signIn.path + back);
    if (params.get('error')) {
      return Promise.reject(new Error(params.get('error_description') || params.get('error')));
    }
    if (!pending || params.get('state') !== pending.state) {
      return Promise.reject(new Error('the answer does not belong to a sign-in started in this tab.'));
    }
    if (params.get('iss') !== origin) {
      return Promise.reject(new Error('the answer names another issuer.'));
    }
    var body = new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code') || '',
      redirect_uri: redirectUri,
      client_id: signIn.clientId,
      code_verifier: pending.verifier,
      resource: origin,
    });
    return fetch(signIn.tokenEndpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body,
    }).then(function (res) {
      return res.json().then(function (json) {
        if (!res.ok) throw new Error(json.error_description || json.error || 'the token request failed.');
        sessionStorage.setItem(TOKEN, JSON.stringify({
          accessToken: json.access_token,
          scope: json.scope,
          expiresAt: Date.now() + json.expires_in * 1000,
        }));
      });
    });
  }

  function render() {
    var token = currentToken();
    if (token) {
      say('Signed in (' + token.scope + '). The token stays in this tab and is sent as a Bearer header.');
      button.textContent = 'Sign out';
      button.onclick = function () {
        sessionStorage.removeItem(TOKEN);
        location.reload();
      };
      options.additionalHeaders = { Authorization: 'Bearer ' + token.accessToken };
    } else {
      if (!status.textContent) say('Not signed in: the schema and its docs are here; queries need a member to sign in.');
      button.textContent = 'Sign in';
      button.onclick = startSignIn;
    }
    button.hidden = false;
    YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
  }

  var params = new URLSearchParams(location.search);
  if (params.has('state') && (params.has('code') || params.has('error'))) {
    say('Signing in…');
    finishSignIn(params)
      .then(function () { say(''); }, function (err) { say('Sign-in failed: ' + err.message); })
      .then(render);
  } else {
    render();
  }
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
# Press "Sign in" above (as a member of a school with MCP connections on), or put an
# access token in the Headers tab: {"Authorization": "Bearer <token>"}
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

/** JSON for a `<script type="application/json">`: `<` escaped so no value can end the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * How the page signs a member in: the first-party GraphiQL client (console-clients.ts), back to
 * this page, for both account scopes. Paths only: the page adds its own origin, which is BASE_URL.
 */
const SIGN_IN = scriptJson({
  clientId: GRAPHIQL_CLIENT_ID,
  path: CONSOLE_PATHS.graphiql,
  scope: 'account:read account:write',
  authorizationEndpoint: OAUTH_PATHS.authorization,
  tokenEndpoint: OAUTH_PATHS.token,
});

/** The GraphiQL page: a shell that loads the same-origin assets, with a sign-in bar. */
export async function graphiqlPage(c: Context): Promise<Response> {
  const { version } = await loadBundle();
  // No placeholder header: a made-up token would turn the first introspection into a 401.
  const options = scriptJson({
    title: 'Lectern Account API',
    defaultQuery: DEFAULT_QUERY,
    shouldPersistHeaders: false,
  });
  const page = html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Lectern Account API · GraphiQL</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${ASSET_PREFIX}/graphiql.css?v=${version}" />
    <style>
      body { margin: 0; display: flex; flex-direction: column; height: 100vh; }
      .sign-in-bar { display: flex; align-items: center; justify-content: flex-end; gap: 1em;
        padding: 0.4em 1em; font: 14px system-ui, sans-serif; border-bottom: 1px solid #ddd; }
      .sign-in-bar p { margin: 0; }
      .sign-in-bar button { font: inherit; padding: 0.3em 1em; cursor: pointer; }
      #root { flex: 1; min-height: 0; }
    </style>
  </head>
  <body>
    <noscript>GraphiQL needs JavaScript. The schema is at /account/graphql/schema.graphql.</noscript>
    <div class="sign-in-bar">
      <p id="sign-in-status" role="status"></p>
      <button type="button" id="sign-in" hidden>Sign in</button>
    </div>
    <div id="root"></div>
    <script type="application/json" id="graphiql-options">${raw(options)}</script>
    <script type="application/json" id="graphiql-sign-in">${raw(SIGN_IN)}</script>
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
