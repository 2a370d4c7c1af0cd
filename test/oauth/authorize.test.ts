import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { setBetaFeature } from '../../src/domain/school/schools.ts';
import { formatScopes, MCP_CHALLENGE_SCOPES } from '../../src/oauth/scopes.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import {
  authorizeInBrowser,
  Browser,
  formFields,
  obtainCode,
  obtainTokens,
  pkcePair,
  registerLoopbackClient,
  signIn,
} from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';

const B = TEST_BASE_URL;

describe('GET/POST /oauth/authorize', () => {
  let t: TestApp;
  let loopback: string;
  let world: World;
  let demoSchool: string;
  let otherSchool: string;
  let owner: Browser;

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    loopback = (await registerLoopbackClient(t, { redirectUris: ['http://127.0.0.1/callback'] })).client_id;
    demoSchool = world.demo.schoolId;
    otherSchool = world.other.schoolId;
    owner = new Browser(t);
    assert.equal((await signIn(owner, 'owner@example.com')).status, 303);
  });
  after(() => t.close());

  function authorizeUrl(overrides: Record<string, string | null> = {}, clientId = loopback): string {
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:5555/callback',
      scope: 'openid courses:read',
      state: 'st-123',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    });
    for (const [k, v] of Object.entries(overrides)) {
      if (v === null) q.delete(k);
      else q.set(k, v);
    }
    return `/oauth/authorize?${q}`;
  }

  async function redirectError(url: string, browser = owner) {
    const res = await browser.request(url);
    assert.equal(res.status, 302, await res.clone().text());
    const location = new URL(res.headers.get('location')!);
    return { location, params: Object.fromEntries(location.searchParams) };
  }

  describe('client and redirect URI are checked first, and never redirected to (RFC 6749 §4.1.2.1)', () => {
    it('an unknown client_id gets an HTML error page, not a redirect', async () => {
      const res = await owner.request(authorizeUrl({ client_id: 'no-such-client' }));
      assert.equal(res.status, 400);
      assert.match(res.headers.get('content-type')!, /^text\/html/);
      assert.equal(res.headers.get('location'), null);
      assert.match(await res.text(), /not registered with Lectern/);
    });

    it('an unregistered redirect_uri gets the error page (OAuth 2.1 §7.12 open redirect)', async () => {
      for (const bad of [
        'https://evil.example/callback',
        'http://127.0.0.1:5555/other',
        'http://127.0.0.1.evil.example/callback',
        'http://127.0.0.1:5555/callback#frag',
      ]) {
        const res = await owner.request(authorizeUrl({ redirect_uri: bad }));
        assert.equal(res.status, 400, bad);
        assert.equal(res.headers.get('location'), null, bad);
        assert.match(await res.text(), /will not send you there/);
      }
    });

    it('a missing redirect_uri or client_id is an error page', async () => {
      assert.equal((await owner.request(authorizeUrl({ redirect_uri: null }))).status, 400);
      assert.equal((await owner.request(authorizeUrl({ client_id: null }))).status, 400);
    });

    it('a duplicated client_id or redirect_uri is an error page, never a redirect (RFC 6749 §3.1)', async () => {
      const url = `${authorizeUrl()}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`;
      const res = await owner.request(url);
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('location'), null);
      const dupClient = await owner.request(`${authorizeUrl()}&client_id=${loopback}`);
      assert.equal(dupClient.status, 400);
      assert.equal(dupClient.headers.get('location'), null);
    });

    it('RFC 8252 §7.3: a loopback redirect URI matches on any port', async () => {
      for (const port of ['1024', '5555', '65535']) {
        const res = await owner.request(authorizeUrl({ redirect_uri: `http://127.0.0.1:${port}/callback` }));
        assert.equal(res.status, 200, port);
      }
    });

    it('any other redirect URI must match exactly (RFC 6749 §3.1.2.3): vendor callbacks', async () => {
      const claude = 'https://claude.ai/api/mcp/auth_callback';
      const ok = await owner.request(authorizeUrl({ redirect_uri: claude }, await vendorId('Claude')));
      assert.equal(ok.status, 200);
      for (const near of [
        `${claude}/`,
        `${claude}?x=1`,
        'https://CLAUDE.ai/api/mcp/auth_callback',
        'https://claude.ai:443/api/mcp/auth_callback',
      ]) {
        const res = await owner.request(authorizeUrl({ redirect_uri: near }, await vendorId('Claude')));
        assert.equal(res.status, 400, near);
        assert.equal(res.headers.get('location'), null, near);
      }
    });
  });

  async function vendorId(name: string): Promise<string> {
    const res = await t.request('/api/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: name, redirect_uris: ['https://claude.ai/api/mcp/auth_callback'] }),
    });
    assert.ok(res.status === 200 || res.status === 201, await res.clone().text());
    return (await res.json()).client_id;
  }

  describe('other errors redirect with error, error_description, state and iss (RFC 9207)', () => {
    const cases: Array<[string, Record<string, string | null>, string, RegExp]> = [
      [
        'PKCE missing (OAuth 2.1 §4.1.1)',
        { code_challenge: null },
        'invalid_request',
        /code_challenge is required/,
      ],
      ['PKCE method missing', { code_challenge_method: null }, 'invalid_request', /S256/],
      [
        'PKCE plain refused (product.md §5)',
        { code_challenge_method: 'plain' },
        'invalid_request',
        /plain is not supported/,
      ],
      ['malformed challenge', { code_challenge: 'short' }, 'invalid_request', /43-character/],
      ['response_type token', { response_type: 'token' }, 'unsupported_response_type', /code/],
      ['response_type missing', { response_type: null }, 'invalid_request', /response_type/],
      [
        'scope with an empty name (RFC 6749 §3.3)',
        { scope: 'openid  courses:read' },
        'invalid_scope',
        /malformed/,
      ],
      [
        'unknown scope, never dropped (product.md §4)',
        { scope: 'openid courses:read bogus:scope' },
        'invalid_scope',
        /bogus:scope/,
      ],
      [
        'account:read from an operator client (spec §5.3)',
        { scope: 'openid account:read' },
        'invalid_scope',
        /account:read/,
      ],
      [
        'resource of another origin (RFC 8707 §2)',
        { resource: 'https://other.example' },
        'invalid_target',
        /^Unknown resource "https:\/\/other\.example"; the resources here are http:\/\/lectern\.test, http:\/\/lectern\.test\/mcp, http:\/\/lectern\.test\/account\/graphql\.$/,
      ],
      ['unknown prompt', { prompt: 'bogus' }, 'invalid_request', /prompt/],
    ];
    for (const [name, overrides, error, description] of cases) {
      it(name, async () => {
        const { location, params } = await redirectError(authorizeUrl(overrides));
        assert.equal(`${location.origin}${location.pathname}`, 'http://127.0.0.1:5555/callback');
        assert.equal(params.error, error);
        assert.match(params.error_description, description);
        assert.equal(params.state, 'st-123');
        assert.equal(params.iss, B);
        assert.equal(params.code, undefined);
      });
    }

    it('state missing: invalid_request without state', async () => {
      const { params } = await redirectError(authorizeUrl({ state: null }));
      assert.equal(params.error, 'invalid_request');
      assert.match(params.error_description, /state is required/);
      assert.equal(params.state, undefined);
      assert.equal(params.iss, B);
    });

    it('a duplicated parameter is invalid_request (RFC 6749 §3.1)', async () => {
      const { params } = await redirectError(`${authorizeUrl()}&scope=openid`);
      assert.equal(params.error, 'invalid_request');
      assert.match(params.error_description, /scope was given more than once/);
    });

    it('resource with or without a trailing slash is the same resource', async () => {
      for (const resource of [B, `${B}/`]) {
        const res = await owner.request(authorizeUrl({ resource }));
        assert.equal(res.status, 200, resource);
      }
    });

    it('member app: resource is required (spec §4.2) → invalid_target', async () => {
      const student = new Browser(t);
      await signIn(student, 'student@example.com');
      const url = authorizeUrl({ scope: 'openid account:read' }, 'demo-member-app');
      const { params } = await redirectError(url, student);
      assert.equal(params.error, 'invalid_target');
      assert.match(params.error_description, /required/);
    });

    it('member app: granted the requested scopes its operator allowed; none allowed → invalid_scope', async () => {
      const student = new Browser(t);
      await signIn(student, 'student@example.com');
      const none = authorizeUrl({ scope: 'courses:read', resource: B }, 'demo-member-app');
      const { params } = await redirectError(none, student);
      assert.equal(params.error, 'invalid_scope');
      const page = await student.request(
        authorizeUrl({ scope: 'openid account:read courses:read', resource: B }, 'demo-member-app'),
      );
      assert.equal(page.status, 200);
      const fields = formFields(await page.text());
      assert.equal(fields.get('scope'), 'openid account:read courses:read');
    });

    it('member app: a user without a role at the app’s school is refused (access_denied)', async () => {
      const { createUser } = await import('../../src/domain/school/users.ts');
      const { hashPassword } = await import('../../src/crypto/passwords.ts');
      const outsider = await createUser(t.runtime.db, {
        email: 'outsider@example.com',
        name: 'Out Sider',
        passwordHash: await hashPassword('demo-password'),
      });
      await addRoles(t.runtime.db, otherSchool, outsider.id, ['student']);
      const browser = new Browser(t);
      assert.equal((await signIn(browser, 'outsider@example.com')).status, 303);
      const { params } = await redirectError(
        authorizeUrl({ scope: 'openid account:read', resource: B }, 'demo-member-app'),
        browser,
      );
      assert.equal(params.error, 'access_denied');
      assert.match(params.error_description, /no role at the school/);
    });

    it('over-long parameters are invalid_request, not a 5xx', async () => {
      const { params } = await redirectError(authorizeUrl({ state: 's'.repeat(2000) }));
      assert.equal(params.error, 'invalid_request');
      assert.match(params.error_description, /state is too long/);
    });

    it('member apps stop authorizing when the school turns the MCP connections beta off', async () => {
      const student = new Browser(t);
      await signIn(student, 'student@example.com');
      await setBetaFeature(t.runtime.db, demoSchool, 'mcp_connections', false);
      try {
        const { params } = await redirectError(
          authorizeUrl({ scope: 'openid account:read', resource: B }, 'demo-member-app'),
          student,
        );
        assert.equal(params.error, 'unauthorized_client');
        assert.match(params.error_description, /MCP connections/);
      } finally {
        await setBetaFeature(t.runtime.db, demoSchool, 'mcp_connections', true);
      }
    });
  });

  describe('sign-in and consent', () => {
    it('no session → /login with a same-origin return_to, then back to the same request', async () => {
      const browser = new Browser(t);
      const url = authorizeUrl();
      const res = await browser.request(url);
      assert.equal(res.status, 302);
      const login = new URL(res.headers.get('location')!, B);
      assert.equal(login.pathname, '/login');
      const returnTo = login.searchParams.get('return_to')!;
      assert.ok(returnTo.startsWith('/oauth/authorize?'));
      assert.deepEqual(
        Object.fromEntries(new URL(returnTo, B).searchParams),
        Object.fromEntries(new URL(url, B).searchParams),
      );
      const signedIn = await signIn(browser, 'owner@example.com', { returnTo });
      assert.equal(signedIn.status, 303);
      assert.equal(signedIn.headers.get('location'), returnTo);
    });

    it('the consent page names the client, its kind, the redirect host, the scopes in words, and warns for loopback', async () => {
      const res = await owner.request(authorizeUrl({ scope: 'openid email courses:write' }));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const csp = res.headers.get('content-security-policy')!;
      assert.match(csp, /frame-ancestors 'none'/);
      assert.match(csp, /form-action 'self' http:\/\/127\.0\.0\.1:5555/);
      const page = await res.text();
      assert.match(page, /Allow Test CLI to use your account\?/);
      assert.match(page, /App on your own computer/);
      assert.match(page, /Check that you started this app yourself/);
      assert.match(page, /127\.0\.0\.1:5555/);
      assert.match(page, /<li>Who you are: your email address<\/li>/);
      assert.match(page, /<li>Courses: view and change<\/li>/);
      assert.match(page, /name="decision" value="allow"/);
      assert.match(page, /name="decision" value="deny"/);
      assert.match(page, /Demo Academy/);
      assert.doesNotMatch(page, /Other School/, 'only schools where the user is owner/admin');
    });

    it('the school picker lists every eligible school; the chosen one is the grant school', async () => {
      const userId = world.demo.lecturerId;
      await addRoles(t.runtime.db, demoSchool, userId, ['admin']);
      await addRoles(t.runtime.db, otherSchool, userId, ['owner']);
      const browser = new Browser(t);
      await signIn(browser, 'lecturer@example.com');
      const page = await (await browser.request(authorizeUrl())).text();
      assert.match(page, /<select id="org_id" name="org_id">/);
      assert.match(page, new RegExp(`<option value="${demoSchool}"`));
      assert.match(page, new RegExp(`<option value="${otherSchool}"`));
      const { code, verifier } = await obtainCode(t, {
        clientId: loopback,
        scopes: ['openid'],
        redirectUri: 'http://127.0.0.1:5555/callback',
        orgId: otherSchool,
        browser,
      });
      const token = await (
        await t.request('/api/oauth/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code,
            code_verifier: verifier,
            client_id: loopback,
            redirect_uri: 'http://127.0.0.1:5555/callback',
          }),
        })
      ).json();
      const info = await (
        await t.request('/api/oauth/userinfo', { headers: { authorization: `Bearer ${token.access_token}` } })
      ).json();
      assert.equal(info.org_id, otherSchool);
      assert.deepEqual(info.roles, ['owner']);
    });

    it('a school the user is not eligible for cannot be smuggled in through org_id', async () => {
      const page = await (await owner.request(authorizeUrl({ prompt: 'consent' }))).text();
      const fields = formFields(page);
      fields.set('decision', 'allow');
      fields.set('org_id', otherSchool);
      const res = await owner.postForm('/oauth/authorize', fields);
      assert.equal(res.status, 303);
      const params = new URL(res.headers.get('location')!).searchParams;
      assert.equal(params.get('error'), 'access_denied');
      assert.equal(params.get('code'), null);
    });

    it('a user with no eligible school is refused with access_denied (operator client, student)', async () => {
      const student = new Browser(t);
      await signIn(student, 'student@example.com');
      const { params } = await redirectError(authorizeUrl(), student);
      assert.equal(params.error, 'access_denied');
      assert.match(params.error_description, /not an owner or admin/);
      assert.equal(params.state, 'st-123');
    });

    it('deny → access_denied with state and iss', async () => {
      const browser = new Browser(t);
      const { location } = await authorizeInBrowser(browser, authorizeUrl(), {
        user: 'owner@example.com',
        decision: 'deny',
      });
      assert.equal(location.searchParams.get('error'), 'access_denied');
      assert.equal(location.searchParams.get('state'), 'st-123');
      assert.equal(location.searchParams.get('iss'), B);
      assert.equal(location.searchParams.get('code'), null);
    });

    it('allow → code, state and iss (RFC 9207 §2) to the exact redirect URI, port kept', async () => {
      const browser = new Browser(t);
      const { location } = await authorizeInBrowser(
        browser,
        authorizeUrl({ redirect_uri: 'http://127.0.0.1:61234/callback' }),
        {
          user: 'owner@example.com',
        },
      );
      assert.equal(`${location.origin}${location.pathname}`, 'http://127.0.0.1:61234/callback');
      assert.match(location.searchParams.get('code')!, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(location.searchParams.get('state'), 'st-123');
      assert.equal(location.searchParams.get('iss'), B);
    });

    it('consent POST without the CSRF token, or with another session’s, is refused with a page', async () => {
      const page = await (await owner.request(authorizeUrl({ prompt: 'consent' }))).text();
      const fields = formFields(page);
      fields.set('decision', 'allow');
      const missing = new URLSearchParams(fields);
      missing.delete('csrf_token');
      const res = await owner.postForm('/oauth/authorize', missing);
      assert.equal(res.status, 403, await res.clone().text());
      assert.equal(res.headers.get('location'), null);
      const other = new Browser(t);
      await signIn(other, 'owner@example.com');
      const foreign = await other.postForm('/oauth/authorize', fields);
      assert.equal(foreign.status, 403);
      assert.equal(foreign.headers.get('location'), null);
    });

    it('consent POST re-validates the request: a tampered redirect_uri gets the error page', async () => {
      const fields = formFields(await (await owner.request(authorizeUrl({ prompt: 'consent' }))).text());
      fields.set('decision', 'allow');
      fields.set('redirect_uri', 'https://evil.example/cb');
      const res = await owner.postForm('/oauth/authorize', fields);
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('location'), null);
    });

    it('remembered consent: a live grant for the same client, school and scopes skips the page; more scopes ask again', async () => {
      // A vendor with a fixed HTTPS redirect: only its own site receives the code (RFC 8252 §8.6).
      const claude = (overrides: Record<string, string>) =>
        authorizeUrl({ redirect_uri: 'https://claude.ai/api/mcp/auth_callback', ...overrides }, 'claude');
      const browser = new Browser(t);
      const first = await authorizeInBrowser(
        browser,
        claude({ scope: 'openid courses:read courses:write' }),
        {
          user: 'owner@example.com',
        },
      );
      assert.ok(first.consentPage);
      const again = await browser.request(claude({ scope: 'openid courses:read' }));
      assert.equal(again.status, 302);
      const location = new URL(again.headers.get('location')!);
      assert.equal(`${location.origin}${location.pathname}`, 'https://claude.ai/api/mcp/auth_callback');
      assert.ok(location.searchParams.get('code'));
      assert.equal(location.searchParams.get('iss'), B);
      const more = await browser.request(claude({ scope: 'openid courses:read students:read' }));
      assert.equal(more.status, 200);
      const forced = await browser.request(claude({ scope: 'openid courses:read', prompt: 'consent' }));
      assert.equal(forced.status, 200);
    });

    it('RFC 6749 §3.3: an omitted scope gets the audience default, shown at consent and granted', async () => {
      const operator = await obtainTokens(t, { clientId: loopback, scopes: [], user: 'owner@example.com' });
      assert.equal(operator.scope, formatScopes(MCP_CHALLENGE_SCOPES));
      const member = await obtainTokens(t, { clientId: 'demo-member-app', scopes: [], resource: B });
      assert.equal(member.scope, 'openid account:read');
      const page = await (
        await owner.request(authorizeUrl({ scope: null, redirect_uri: 'http://127.0.0.1:7777/callback' }))
      ).text();
      assert.match(page, /<li>Courses: view<\/li>/);
      assert.doesNotMatch(page, /view and change/);
    });

    it('RFC 8252 §8.6: a loopback redirect never reuses remembered consent, for any kind of client', async () => {
      const cases: Array<{ clientId: string; user: string; extra: Record<string, string> }> = [
        { clientId: loopback, user: 'owner@example.com', extra: {} },
        { clientId: 'claude-code', user: 'owner@example.com', extra: {} },
        {
          clientId: 'demo-member-app',
          user: 'student@example.com',
          extra: { scope: 'openid account:read', resource: B },
        },
      ];
      for (const { clientId, user, extra } of cases) {
        const browser = new Browser(t);
        const first = await authorizeInBrowser(browser, authorizeUrl(extra, clientId), { user });
        assert.ok(first.consentPage, clientId);
        assert.ok(first.location.searchParams.get('code'), clientId);
        // The attack: any local listener on a new port plus a top-level navigation, no prompt.
        const url = authorizeUrl({ ...extra, redirect_uri: 'http://127.0.0.1:31337/callback' }, clientId);
        const res = await browser.request(url);
        assert.equal(res.status, 200, `${clientId}: the consent page, not a redirect with a code`);
        assert.equal(res.headers.get('location'), null, clientId);
        const page = await res.text();
        assert.match(
          page,
          /<div class="notice warning" role="note"><p><strong>(Check that you started this app yourself|Continue only if you just started .+ yourself)\.<\/strong>/,
          clientId,
        );
        // OIDC Core §3.1.2.1: prompt=none cannot be honoured without the page.
        const { params } = await redirectError(
          authorizeUrl(
            { ...extra, redirect_uri: 'http://127.0.0.1:31337/callback', prompt: 'none' },
            clientId,
          ),
          browser,
        );
        assert.equal(params.error, 'consent_required', clientId);
        assert.equal(params.code, undefined, clientId);
      }
    });

    it('prompt=login asks for the password again even when signed in, then continues once (OIDC Core §3.1.2.1)', async () => {
      const browser = new Browser(t);
      await signIn(browser, 'owner@example.com');
      const before = browser.cookies.get('lectern_session');
      const res = await browser.request(authorizeUrl({ prompt: 'login consent' }));
      assert.equal(res.status, 302);
      const login = new URL(res.headers.get('location')!, B);
      assert.equal(login.pathname, '/login');
      assert.equal(login.searchParams.get('prompt'), 'login');
      const returnTo = login.searchParams.get('return_to')!;
      assert.equal(new URL(returnTo, B).searchParams.get('prompt'), 'consent', 'login is not asked twice');
      const form = await browser.request(`${login.pathname}${login.search}`);
      assert.equal(form.status, 200, 'the form is shown despite the session');
      const done = await signIn(browser, 'owner@example.com', { returnTo, prompt: 'login' });
      assert.equal(done.status, 303);
      assert.notEqual(browser.cookies.get('lectern_session'), before, 'a new session');
      const consent = await browser.request(done.headers.get('location')!);
      assert.equal(consent.status, 200);
    });

    it('max_age: an older sign-in is asked again; max_age=0 acts as prompt=login; a bad value is invalid_request', async () => {
      const browser = new Browser(t);
      await signIn(browser, 'owner@example.com');
      assert.equal((await browser.request(authorizeUrl({ max_age: '3600', prompt: 'consent' }))).status, 200);
      // Two hours later the sign-in is older than max_age.
      const old = await t.clock.travel(7200_000, () => browser.request(authorizeUrl({ max_age: '3600' })));
      assert.equal(old.status, 302);
      assert.match(old.headers.get('location')!, /^\/login\?return_to=.*&prompt=login$/);
      const zero = await browser.request(authorizeUrl({ max_age: '0' }));
      const returnTo = new URL(zero.headers.get('location')!, B).searchParams.get('return_to')!;
      assert.equal(new URL(returnTo, B).searchParams.get('max_age'), null);
      const { params } = await redirectError(authorizeUrl({ max_age: '-1' }));
      assert.equal(params.error, 'invalid_request');
      assert.match(params.error_description, /max_age/);
      const none = await redirectError(authorizeUrl({ max_age: '0', prompt: 'none' }), browser);
      assert.equal(none.params.error, 'login_required');
    });

    it('“Use another account” signs out (CSRF-protected) and comes back to the same request', async () => {
      const browser = new Browser(t);
      await signIn(browser, 'owner@example.com');
      const url = authorizeUrl({ prompt: 'consent' });
      const page = await (await browser.request(url)).text();
      assert.match(
        page,
        /Not owner@example\.com\? <button class="link" type="submit">Use another account<\/button>/,
      );
      const fields = formFields(page, '/logout');
      assert.equal(fields.get('return_to'), url);
      const res = await browser.postForm('/logout', fields);
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), `/login?return_to=${encodeURIComponent(url)}`);
      assert.equal(browser.cookies.has('lectern_session'), false);
      const evil = new Browser(t);
      await signIn(evil, 'owner@example.com');
      const token = formFields(await (await evil.request(url)).text(), '/logout').get('csrf_token')!;
      const away = await evil.postForm('/logout', { csrf_token: token, return_to: 'https://evil.example/' });
      assert.equal(away.headers.get('location'), '/login');
    });

    it('prompt=none without a session → login_required', async () => {
      const { params } = await redirectError(authorizeUrl({ prompt: 'none' }), new Browser(t));
      assert.equal(params.error, 'login_required');
      assert.equal(params.state, 'st-123');
    });

    it('a non-form consent POST is a 415 page', async () => {
      const res = await owner.request('/oauth/authorize', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(res.status, 415);
    });
  });
});
