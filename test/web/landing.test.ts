/**
 * The front page and the 404 a person meets: browsers get
 * HTML, API clients keep JSON, chosen by the Accept header (RFC 9110 §12.5.1).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { prefersHtml } from '../../src/http/negotiation.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8';
const B = TEST_BASE_URL;

describe('GET / and the browser 404', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('a browser gets the landing page: what this is, its issuer, and where to go', async () => {
    const res = await t.request('/', { headers: { accept: BROWSER_ACCEPT } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('vary'), 'Accept');
    const html = await res.text();
    assert.match(html, /<h1>Lectern<\/h1>/);
    assert.match(html, /<title>Welcome · Lectern<\/title>/);
    assert.ok(html.includes(`<code>${B}</code>`), 'names the issuer');
    for (const href of ['/login', '/docs', '/auth.md', '/account/graphql', '/llms.txt']) {
      assert.ok(html.includes(`<a href="${href}">`), href);
    }
    assert.doesNotMatch(html, /<script/);
  });

  it('the landing page has the page security headers', async () => {
    const res = await t.request('/', { headers: { accept: BROWSER_ACCEPT } });
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=UTF-8/i);
  });

  it('API clients (no Accept, */*, JSON) get a small JSON index', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      const res = await t.request('/', { headers: accept ? { accept } : {} });
      assert.equal(res.status, 200, String(accept));
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(await res.json(), {
        service: 'lectern',
        issuer: B,
        links: {
          login: `${B}/login`,
          api_reference: `${B}/docs`,
          openapi: `${B}/openapi.json`,
          auth_guide: `${B}/auth.md`,
          graphql: `${B}/account/graphql`,
          mcp: `${B}/mcp`,
          llms_txt: `${B}/llms.txt`,
          authorization_server_metadata: `${B}/.well-known/oauth-authorization-server`,
        },
      });
    }
  });

  it('a browser asking for an unknown address gets an HTML 404 page, the path escaped', async () => {
    const res = await t.request('/no/such/<b>page</b>?token=secret', { headers: { accept: BROWSER_ACCEPT } });
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=UTF-8/i);
    const html = await res.text();
    assert.match(html, /<h1>Page not found<\/h1>/);
    assert.ok(html.includes('There is no page at <code>/no/such/&lt;b&gt;page&lt;/b&gt;</code>.'), html);
    assert.doesNotMatch(html, /token=secret/);
    assert.ok(html.includes('<a href="/">front page</a>'));
  });

  it('API clients keep the problem+json 404 on the same unknown address', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/problem+json']) {
      const res = await t.request('/no/such/route', { headers: accept ? { accept } : {} });
      assert.equal(res.status, 404, String(accept));
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.equal((await res.json()).code, 'not_found');
    }
  });

  it('prefersHtml reads the Accept header by quality', () => {
    const cases: Array<[string | undefined, boolean]> = [
      [BROWSER_ACCEPT, true],
      ['text/html', true],
      ['application/xhtml+xml', true],
      [undefined, false],
      ['', false],
      ['*/*', false],
      ['application/json', false],
      ['application/json, text/html', true],
      ['text/html;q=0.5, application/json', false],
      ['text/html;q=0', false],
      ['text/html;q=abc', false],
      ['application/problem+json, text/html;q=0.9', false],
    ];
    for (const [accept, expected] of cases) assert.equal(prefersHtml(accept), expected, String(accept));
  });
});
