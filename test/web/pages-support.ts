import assert from 'node:assert/strict';
import { TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { Browser, formFields, signIn } from '../support/oauth-flow.ts';

/** A browser signed in through the real /login form. */
export async function signedIn(t: TestApp, email: string): Promise<Browser> {
  const browser = new Browser(t);
  assert.equal((await signIn(browser, email)).status, 303, `sign in ${email}`);
  return browser;
}

/** The CSRF token a page's forms carry. */
export async function csrfOf(browser: Browser, path: string): Promise<string> {
  const res = await browser.request(path);
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  const token = formFields(await res.text()).get('csrf_token');
  assert.ok(token, `no csrf_token on ${path}`);
  return token;
}

/** POSTs a form with the CSRF token of `page` (the way the page's own form would). */
export async function submit(
  browser: Browser,
  page: string,
  action: string,
  fields: Record<string, string | string[]>,
): Promise<Response> {
  const body = new URLSearchParams({ csrf_token: await csrfOf(browser, page) });
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
  return browser.postForm(action, body);
}

/** The path a redirect points at (relative to the test base URL). */
export function locationOf(res: Response): string {
  const location = res.headers.get('location');
  assert.ok(location, `expected a redirect, got ${res.status}`);
  const url = new URL(location, TEST_BASE_URL);
  return `${url.pathname}${url.search}`;
}

/** UserInfo's status for an access token: 200 while the token works, 401 once it does not. */
export async function userinfoStatus(t: TestApp, accessToken: string): Promise<number> {
  const res = await t.request('/api/oauth/userinfo', { headers: { authorization: `Bearer ${accessToken}` } });
  return res.status;
}

/**
 * The security headers every signed-in page sends; a public page kept for visitors
 * (web/shared/page-cache.ts) is `no-cache` instead of `no-store`, revalidated by its ETag.
 */
export function assertPageHeaders(res: Response, cacheControl: 'no-store' | 'no-cache' = 'no-store'): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /form-action 'self'/);
  assert.doesNotMatch(csp, /script-src/, 'no scripts are allowed on these pages');
  assert.equal(res.headers.get('cache-control'), cacheControl);
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=UTF-8/i);
}
