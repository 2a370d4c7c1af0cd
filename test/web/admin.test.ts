import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../../src/crypto/tokens.ts';
import { DEMO_MEMBER_APP_ID } from '../../src/domain/demo/demo-seed.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { betaFeatures, findSchoolById } from '../../src/domain/school/schools.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { HOUR, SECOND } from '../support/clock.ts';
import { type Browser, obtainCode, obtainTokens, tokenRequest } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { assertPageHeaders, csrfOf, locationOf, signedIn, submit, userinfoStatus } from './pages-support.ts';

const B = TEST_BASE_URL;
const MEMBER_SCOPES = ['openid', 'profile', 'email', 'account:read', 'account:write'];

describe('/admin: the operator area (product.md §8, spec §5.2 item 5)', () => {
  let t: TestApp;
  let world: World;
  let demo: string;
  let other: string;
  let owner: Browser;
  let student: Browser;

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    demo = world.demo.schoolId;
    other = world.other.schoolId;
    owner = await signedIn(t, 'owner@example.com');
    student = await signedIn(t, 'student@example.com');
  });
  after(() => t.close());

  const beta = async () =>
    betaFeatures((await findSchoolById(t.runtime.db, demo))!).includes('mcp_connections');
  const setBeta = async (on: boolean) => {
    const res = await submit(owner, `/admin/${demo}`, `/admin/${demo}/beta`, { enabled: on ? 'on' : 'off' });
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `/admin/${demo}?done=beta-${on ? 'on' : 'off'}`);
  };

  describe('who may enter', () => {
    it('nobody signed in is sent to /login with a way back', async () => {
      const res = await t.request(`/admin/${demo}/apps`);
      assert.equal(res.status, 302);
      assert.equal(locationOf(res), `/login?return_to=${encodeURIComponent(`/admin/${demo}/apps`)}`);
    });

    it('an operator of one school is taken to it', async () => {
      const res = await owner.request('/admin');
      assert.equal(res.status, 302);
      assert.equal(locationOf(res), `/admin/${demo}`);
      const page = await owner.request(`/admin/${demo}`);
      assert.equal(page.status, 200);
      assertPageHeaders(page);
      const body = await page.text();
      assert.match(body, /Demo Academy · Settings/);
      assert.match(body, /MCP connections/);
    });

    it('a student gets the 403 page, for pages and for forged-looking but valid POSTs alike', async () => {
      assert.equal((await student.request('/admin')).status, 403);
      const page = await student.request(`/admin/${demo}`);
      assert.equal(page.status, 403);
      assertPageHeaders(page);
      assert.match(await page.text(), /Only owners and admins/);
      // A valid CSRF token of the student's own session does not make them an operator.
      const token = await csrfOf(student, '/account');
      const post = await student.postForm(`/admin/${demo}/beta`, { csrf_token: token, enabled: 'off' });
      assert.equal(post.status, 403);
      assert.equal(await beta(), true);
    });

    it("an owner of one school gets 403 at another school's pages", async () => {
      assert.equal((await owner.request(`/admin/${other}`)).status, 403);
      assert.equal((await owner.request(`/admin/${other}/apps`)).status, 403);
      assert.equal((await owner.request('/admin/sch_nope')).status, 403);
      assert.equal((await owner.request(`/admin?school=${other}`)).status, 403);
    });

    it('an operator of several schools gets a picker and a switcher', async () => {
      const lecturer = { id: world.demo.lecturerId };
      await addRoles(t.runtime.db, demo, lecturer.id, ['admin']);
      await addRoles(t.runtime.db, other, lecturer.id, ['owner']);
      const browser = await signedIn(t, 'lecturer@example.com');
      const picker = await browser.request('/admin');
      assert.equal(picker.status, 200);
      const html = await picker.text();
      assert.ok(html.includes(`href="/admin/${demo}"`) && html.includes(`href="/admin/${other}"`));
      const page = await (await browser.request(`/admin/${other}`)).text();
      assert.match(page, /<select id="school-switch" name="school">/);
      const switched = await browser.request(`/admin?school=${demo}`);
      assert.equal(locationOf(switched), `/admin/${demo}`);
    });
  });

  describe('CSRF: every state change is a POST with the session token (OWASP CSRF cheat sheet)', () => {
    it('a forged POST without the token is refused and changes nothing', async () => {
      const res = await owner.postForm(`/admin/${demo}/beta`, { enabled: 'off' });
      assert.equal(res.status, 403);
      assertPageHeaders(res);
      assert.match(await res.text(), /Form expired/);
      assert.equal(await beta(), true);
    });

    it('a wrong token, or another session’s token, is refused', async () => {
      const theirs = await csrfOf(student, '/account');
      for (const csrf_token of ['x'.repeat(43), theirs, '']) {
        const res = await owner.postForm(`/admin/${demo}/beta`, { csrf_token, enabled: 'off' });
        assert.equal(res.status, 403, csrf_token);
      }
      assert.equal(await beta(), true);
    });

    it('a POST that is not a web form is refused (415)', async () => {
      const res = await owner.request(`/admin/${demo}/beta`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ enabled: 'off' }),
      });
      assert.equal(res.status, 415);
      assert.equal(await beta(), true);
    });

    it('GET never changes state: the beta route has no GET', async () => {
      const res = await owner.request(`/admin/${demo}/beta?enabled=off`);
      assert.equal(res.status, 404);
      assert.equal(await beta(), true);
    });
  });

  describe('Settings → Beta features → MCP connections', () => {
    it('off hides Developers, keeps member apps listed and deletable, and stops them at authorize and token (spec §5.2 item 5)', async () => {
      const pending = await obtainCode(t, {
        clientId: DEMO_MEMBER_APP_ID,
        scopes: ['openid', 'account:read'],
        resource: B,
      });
      const live = await obtainTokens(t, { clientId: DEMO_MEMBER_APP_ID, scopes: ['openid'], resource: B });
      await setBeta(false);
      assert.equal(await beta(), false);

      const settings = await (await owner.request(`/admin/${demo}`)).text();
      assert.match(settings, /id="mcp-status">Off</);
      // Issue #16 changed this: the apps stay reachable (to review or delete them), not from the
      // navigation but from Settings; only creating a new one needs the beta.
      const nav = /<nav class="top"[\s\S]*?<\/nav>/.exec(settings)?.[0] ?? '';
      assert.ok(!nav.includes(`href="/admin/${demo}/apps"`), 'no Developers link in the navigation');
      assert.match(settings, /Your 1 member app is kept while MCP connections are off/);
      assert.ok(settings.includes(`<a href="/admin/${demo}/apps">Review or delete member apps</a>`));
      const apps = await owner.request(`/admin/${demo}/apps`);
      assert.equal(apps.status, 200);
      const list = await apps.text();
      assert.ok(list.includes(DEMO_MEMBER_APP_ID));
      assert.match(list, /MCP connections are off: these apps cannot be authorized or get tokens/);
      assert.ok(!list.includes(`href="/admin/${demo}/apps/new"`), 'no way to create while off');
      assert.equal((await owner.request(`/admin/${demo}/apps/${DEMO_MEMBER_APP_ID}`)).status, 200);
      const creating = await owner.request(`/admin/${demo}/apps/new`);
      assert.equal(creating.status, 409);
      assert.match(await creating.text(), /Turn on the MCP connections beta feature in Settings to create/);
      const post = await submit(owner, `/admin/${demo}`, `/admin/${demo}/apps`, {
        name: 'While off',
        redirect_uris: 'http://127.0.0.1/callback',
        auth_method: 'none',
        scope: 'openid',
      });
      assert.equal(post.status, 409);

      // Authorize redirects unauthorized_client; the token endpoint refuses code and refresh.
      const browser = await signedIn(t, 'student@example.com');
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: DEMO_MEMBER_APP_ID,
        redirect_uri: 'http://127.0.0.1:5000/callback',
        scope: 'openid account:read',
        state: 's1',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        resource: B,
      });
      const denied = await browser.request(`/oauth/authorize?${q}`);
      assert.equal(denied.status, 302);
      assert.equal(new URL(denied.headers.get('location')!).searchParams.get('error'), 'unauthorized_client');
      const exchange = await tokenRequest(t, {
        grant_type: 'authorization_code',
        code: pending.code,
        redirect_uri: pending.redirectUri,
        client_id: DEMO_MEMBER_APP_ID,
        code_verifier: pending.verifier,
        resource: B,
      });
      assert.equal(exchange.status, 400);
      assert.equal((await exchange.json()).error, 'unauthorized_client');
      const refresh = await tokenRequest(t, {
        grant_type: 'refresh_token',
        refresh_token: live.refresh_token,
        client_id: DEMO_MEMBER_APP_ID,
      });
      assert.equal((await refresh.json()).error, 'unauthorized_client');

      // On again: the apps were kept, not deleted.
      await setBeta(true);
      const listed = await owner.request(`/admin/${demo}/apps`);
      assert.equal(listed.status, 200);
      assert.match(await listed.text(), new RegExp(DEMO_MEMBER_APP_ID));
      const again = await tokenRequest(t, {
        grant_type: 'refresh_token',
        refresh_token: live.refresh_token,
        client_id: DEMO_MEMBER_APP_ID,
      });
      assert.equal(again.status, 200);
    });

    it('an unknown switch value is a 400, not a change', async () => {
      const res = await submit(owner, `/admin/${demo}`, `/admin/${demo}/beta`, { enabled: 'maybe' });
      assert.equal(res.status, 400);
      assert.equal(await beta(), true);
    });
  });

  describe('Developers → OAuth applications', () => {
    const newPage = () => `/admin/${demo}/apps/new`;
    const create = (fields: Record<string, string | string[]>) =>
      submit(owner, newPage(), `/admin/${demo}/apps`, fields);
    const clientIdOf = (html: string) => /id="client-id">([^<]+)</.exec(html)?.[1];
    const secretOf = (html: string) => /id="client-secret">([^<]+)</.exec(html)?.[1];
    /** Creates an app through the form and follows the redirect (POST-redirect-GET). */
    const created = async (fields: Record<string, string | string[]>) => {
      const res = await create(fields);
      assert.equal(res.status, 303);
      const page = await owner.request(locationOf(res));
      assert.equal(page.status, 200);
      const html = await page.text();
      return { location: locationOf(res), html, clientId: clientIdOf(html)!, secret: secretOf(html) };
    };

    it('refuses bad input field by field, tied to the fields (aria-describedby)', async () => {
      const res = await create({
        name: '',
        redirect_uris: 'http://example.com/callback\nhttps://ok.example/cb#frag',
        auth_method: 'client_secret_basic',
        scope: ['courses:read', 'openid'],
      });
      assert.equal(res.status, 422);
      const html = await res.text();
      for (const field of ['name', 'redirect_uris', 'auth_method', 'scopes']) {
        assert.match(html, new RegExp(`id="${field}-error"`), field);
      }
      assert.match(html, /<input id="name"[^>]*aria-describedby="name-hint name-error" aria-invalid="true"/);
      assert.match(
        html,
        /<textarea id="redirect_uris"[^>]*aria-describedby="redirect-hint redirect_uris-error"/,
      );
      assert.match(html, /Member apps cannot have: courses:read/);
      const count = await t.runtime.db
        .selectFrom('oauth_clients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('kind', '=', 'member')
        // Schools' own apps; the deployment-wide GraphiQL client has no school.
        .where('school_id', 'is not', null)
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 1, 'only the demo app exists');
    });

    it('accepts https and loopback redirect URIs only (RFC 6749 §3.1.2, RFC 8252 §7.3)', async () => {
      for (const bad of [
        'ftp://x.example/cb',
        'myapp://cb',
        'http://10.0.0.1/cb',
        'https://u:p@x.example/cb',
        'not a uri',
      ]) {
        const res = await create({ name: 'X', redirect_uris: bad, auth_method: 'none', scope: 'openid' });
        assert.equal(res.status, 422, bad);
      }
      const many = Array.from({ length: 11 }, (_, i) => `https://x.example/cb${i}`).join('\n');
      assert.equal(
        (await create({ name: 'X', redirect_uris: many, auth_method: 'none', scope: 'openid' })).status,
        422,
      );
    });

    it('creates a public app: client_id shown, no secret, stored as a member client of the school', async () => {
      const res = await create({
        name: 'Study Buddy',
        redirect_uris: 'http://127.0.0.1/callback\nhttps://buddy.example/oauth/cb',
        auth_method: 'none',
        scope: ['openid', 'account:read'],
      });
      // POST-redirect-GET: the form answers with a redirect to the app's page.
      assert.equal(res.status, 303);
      const location = locationOf(res);
      const clientId = /^\/admin\/[^/]+\/apps\/(app_[0-9a-z]{26})\?done=created$/.exec(location)?.[1];
      assert.ok(clientId, location);
      const page = await owner.request(location);
      assert.equal(page.status, 200);
      assertPageHeaders(page);
      const html = await page.text();
      assert.equal(clientIdOf(html), clientId);
      assert.match(html, /The app was created\. A public app has no secret/);
      assert.equal(secretOf(html), undefined);
      const row = await t.runtime.db
        .selectFrom('oauth_clients')
        .selectAll()
        .where('id', '=', clientId!)
        .executeTakeFirstOrThrow();
      const ownerId = world.demo.ownerId;
      assert.deepEqual(
        {
          kind: row.kind,
          school: row.school_id,
          method: row.token_endpoint_auth_method,
          secret: row.secret_hash,
          scopes: row.allowed_scopes,
          uris: JSON.parse(row.redirect_uris),
          by: row.created_by_user_id,
          type: row.application_type,
        },
        {
          kind: 'member',
          school: demo,
          method: 'none',
          secret: null,
          scopes: 'openid account:read',
          uris: ['http://127.0.0.1/callback', 'https://buddy.example/oauth/cb'],
          by: ownerId,
          type: 'web',
        },
      );
      // It works: a student authorizes it and gets only the scopes the operator allowed.
      const tokens = await obtainTokens(t, {
        clientId: clientId!,
        scopes: ['openid', 'account:read', 'account:write'],
        resource: B,
      });
      assert.equal(tokens.scope, 'openid account:read');
      assert.equal(await userinfoStatus(t, tokens.access_token), 200);
    });

    it('creates a confidential app: the secret is shown once, after the redirect, on a no-store page, and stored hashed', async () => {
      const res = await create({
        name: 'Server App',
        redirect_uris: 'https://server.example/cb',
        auth_method: 'client_secret_post',
        scope: MEMBER_SCOPES,
      });
      // POST-redirect-GET: the secret is not in the redirect, nor in its URL.
      assert.equal(res.status, 303);
      const location = locationOf(res);
      assert.match(location, /^\/admin\/[^/]+\/apps\/app_[0-9a-z]{26}\/secret$/);
      assert.equal(await res.text(), '');
      const shown = await owner.request(location);
      assert.equal(shown.status, 200);
      assertPageHeaders(shown);
      const html = await shown.text();
      const clientId = clientIdOf(html)!;
      const secret = secretOf(html)!;
      assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
      assert.ok(location.includes(clientId));
      // A refresh shows it no more, and no app was created twice.
      const again = await owner.request(location);
      assert.equal(again.status, 410);
      const gone = await again.text();
      assert.ok(!gone.includes(secret));
      assert.match(gone, /Secret already shown/);
      const named = await t.runtime.db
        .selectFrom('oauth_clients')
        .select('id')
        .where('name', '=', 'Server App')
        .execute();
      assert.equal(named.length, 1);
      const row = await t.runtime.db
        .selectFrom('oauth_clients')
        .select(['secret_hash', 'allowed_scopes'])
        .where('id', '=', clientId)
        .executeTakeFirstOrThrow();
      assert.equal(row.secret_hash, sha256(secret));
      assert.equal(row.allowed_scopes, MEMBER_SCOPES.join(' '));
      const page = await (await owner.request(`/admin/${demo}/apps/${clientId}`)).text();
      assert.ok(!page.includes(secret), 'the app page never shows the secret again');
      assert.match(page, /Rotate secret/);

      // The secret authenticates the code exchange; rotating replaces it at once.
      const { code, verifier, redirectUri } = await obtainCode(t, {
        clientId,
        redirectUri: 'https://server.example/cb',
        scopes: ['openid', 'account:read'],
        resource: B,
      });
      const fields = {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
        resource: B,
      };
      const noSecret = await tokenRequest(t, fields);
      assert.equal(noSecret.status, 401);
      const ok = await tokenRequest(t, { ...fields, client_secret: secret });
      assert.equal(ok.status, 200);
      const tokens = await ok.json();

      const rotated = await submit(
        owner,
        `/admin/${demo}/apps/${clientId}`,
        `/admin/${demo}/apps/${clientId}/rotate-secret`,
        {},
      );
      assert.equal(rotated.status, 303);
      assert.equal(locationOf(rotated), location);
      const rotatedPage = await owner.request(location);
      assert.equal(rotatedPage.headers.get('cache-control'), 'no-store');
      const rotatedHtml = await rotatedPage.text();
      const newSecret = secretOf(rotatedHtml)!;
      assert.notEqual(newSecret, secret);
      assert.match(rotatedHtml, /The previous one keeps working until <time datetime="[^"]+">/);
      // Both work during the overlap; the old one stops once it ends.
      let refreshToken = tokens.refresh_token as string;
      const refresh = async (client_secret: string) => {
        const r = await tokenRequest(t, {
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: clientId,
          client_secret,
        });
        if (r.status === 200) refreshToken = (await r.clone().json()).refresh_token;
        return r;
      };
      assert.equal((await refresh(secret)).status, 200);
      assert.equal((await refresh(newSecret)).status, 200);
      // A second after the default 24-hour overlap, only the new secret authenticates.
      await t.clock.travel(24 * HOUR + SECOND, async () => {
        const old = await refresh(secret);
        assert.equal(old.status, 401);
        assert.equal((await old.json()).error, 'invalid_client');
        assert.equal((await refresh(newSecret)).status, 200);
      });
    });

    it('a public app has no secret to rotate', async () => {
      const res = await submit(
        owner,
        `/admin/${demo}/apps/${DEMO_MEMBER_APP_ID}`,
        `/admin/${demo}/apps/${DEMO_MEMBER_APP_ID}/rotate-secret`,
        {},
      );
      assert.equal(res.status, 400);
    });

    it('edits name, redirect URIs and scopes; narrowing revokes connections holding a removed scope', async () => {
      const { clientId } = await created({
        name: 'Editable',
        redirect_uris: 'http://127.0.0.1/callback',
        auth_method: 'none',
        scope: ['openid', 'account:read', 'account:write'],
      });
      const narrow = await obtainTokens(t, { clientId, scopes: ['openid', 'account:read'], resource: B });
      const wide = await obtainTokens(t, {
        clientId,
        scopes: ['openid', 'account:read', 'account:write'],
        resource: B,
        user: 'owner@example.com',
      });
      const page = `/admin/${demo}/apps/${clientId}`;
      const bad = await submit(owner, page, page, { name: 'Edited', redirect_uris: '', scope: 'openid' });
      assert.equal(bad.status, 422);
      const res = await submit(owner, page, page, {
        name: 'Edited',
        redirect_uris: 'http://127.0.0.1/callback\nhttps://edited.example/cb',
        scope: ['openid', 'account:read'],
      });
      // POST-redirect-GET: the count of revoked connections rides on the redirect.
      assert.equal(res.status, 303);
      assert.equal(locationOf(res), `${page}?done=updated&revoked=1`);
      assert.match(
        await (await owner.request(locationOf(res))).text(),
        /1 connection\(s\) held a scope you removed/,
      );
      assert.equal(await userinfoStatus(t, narrow.access_token), 200);
      assert.equal(await userinfoStatus(t, wide.access_token), 401);
      const row = await t.runtime.db
        .selectFrom('oauth_clients')
        .select(['name', 'allowed_scopes', 'redirect_uris', 'token_endpoint_auth_method'])
        .where('id', '=', clientId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        { ...row },
        {
          name: 'Edited',
          allowed_scopes: 'openid account:read',
          redirect_uris: JSON.stringify(['http://127.0.0.1/callback', 'https://edited.example/cb']),
          token_endpoint_auth_method: 'none',
        },
      );
      const renamed = await submit(owner, page, page, {
        name: 'Edited again',
        redirect_uris: 'http://127.0.0.1/callback',
        scope: ['openid', 'account:read'],
      });
      assert.equal(renamed.status, 303);
      assert.equal(locationOf(renamed), `${page}?done=updated`);
    });

    it('deletes an app after a confirmation page, revoking every token', async () => {
      const { clientId } = await created({
        name: 'Doomed',
        redirect_uris: 'http://127.0.0.1/callback',
        auth_method: 'none',
        scope: ['openid', 'account:read'],
      });
      const tokens = await obtainTokens(t, { clientId, scopes: ['openid', 'account:read'], resource: B });
      const confirm = await owner.request(`/admin/${demo}/apps/${clientId}/delete`);
      assert.equal(confirm.status, 200);
      assert.match(await confirm.text(), /revokes its 1 active connection/);
      const res = await submit(
        owner,
        `/admin/${demo}/apps/${clientId}/delete`,
        `/admin/${demo}/apps/${clientId}/delete`,
        {},
      );
      assert.equal(res.status, 303);
      assert.equal(locationOf(res), `/admin/${demo}/apps?done=deleted`);
      assert.equal(await userinfoStatus(t, tokens.access_token), 401);
      const gone = await t.runtime.db
        .selectFrom('oauth_clients')
        .select('id')
        .where('id', '=', clientId)
        .executeTakeFirst();
      assert.equal(gone, undefined);
      assert.equal((await owner.request(`/admin/${demo}/apps/${clientId}`)).status, 404);
    });

    it("another school's app cannot be reached through this school's path", async () => {
      await t.runtime.db
        .insertInto('oauth_clients')
        .values({
          id: 'app_other_school',
          kind: 'member',
          name: 'Other App',
          school_id: other,
          token_endpoint_auth_method: 'none',
          secret_hash: null,
          redirect_uris: '["http://127.0.0.1/callback"]',
          allowed_scopes: 'openid',
          application_type: 'native',
          metadata: '{}',
          reviewed: 1,
          metadata_fetched_at: null,
          metadata_expires_at: null,
          created_by_user_id: null,
          secret_rotated_at: null,
          created_at: new Date().toISOString(),
          updated_at: new Date().toISOString(),
        })
        .execute();
      const path = `/admin/${demo}/apps/app_other_school`;
      assert.equal((await owner.request(path)).status, 404);
      const del = await submit(owner, `/admin/${demo}/apps`, `${path}/delete`, {});
      assert.equal(del.status, 404);
      const edit = await submit(owner, `/admin/${demo}/apps`, path, {
        name: 'Hijacked',
        redirect_uris: 'http://127.0.0.1/x',
        scope: 'openid',
      });
      assert.equal(edit.status, 404);
      const row = await t.runtime.db
        .selectFrom('oauth_clients')
        .select('name')
        .where('id', '=', 'app_other_school')
        .executeTakeFirst();
      assert.equal(row?.name, 'Other App');
    });
  });

  describe('Connected apps', () => {
    it('lists every live grant of the school with client, person, scopes and dates; revoking ends its tokens', async () => {
      const tokens = await obtainTokens(t, {
        clientId: DEMO_MEMBER_APP_ID,
        scopes: ['openid', 'email', 'account:read'],
        resource: B,
      });
      const page = await owner.request(`/admin/${demo}/connected`);
      assert.equal(page.status, 200);
      assertPageHeaders(page);
      const html = await page.text();
      assert.match(html, /Demo Member App/);
      assert.match(html, /student@example\.com/);
      assert.match(html, /<code>account:read<\/code>/);
      const grant = await t.runtime.db
        .selectFrom('oauth_tokens')
        .select('grant_id')
        .where('token_hash', '=', sha256(tokens.access_token))
        .executeTakeFirstOrThrow();
      const key = /\/connected\/revoke\?grant=([^"]+)"/g;
      const keys = [...html.matchAll(key)].map((m) => m[1]);
      assert.ok(keys.includes(grant.grant_id), 'the newest grant of the connection is its key');

      // Revoking goes through a confirmation page, which itself changes nothing.
      const confirmPath = `/admin/${demo}/connected/revoke?grant=${grant.grant_id}`;
      const confirm = await owner.request(confirmPath);
      assert.equal(confirm.status, 200);
      assertPageHeaders(confirm);
      const confirmHtml = await confirm.text();
      assert.match(confirmHtml, /<h1>Revoke Demo Member App\?<\/h1>/);
      assert.match(
        confirmHtml,
        /stops acting for Sam Student \(student@example\.com\) at Demo Academy at once/,
      );
      assert.ok(confirmHtml.includes(`name="grant" value="${grant.grant_id}"`));
      assert.equal(await userinfoStatus(t, tokens.access_token), 200);
      const res = await submit(owner, confirmPath, `/admin/${demo}/connected/revoke`, {
        grant: grant.grant_id,
      });
      assert.equal(res.status, 303);
      assert.equal(locationOf(res), `/admin/${demo}/connected?done=revoked`);
      assert.equal(await userinfoStatus(t, tokens.access_token), 401);
      const refresh = await tokenRequest(t, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: DEMO_MEMBER_APP_ID,
      });
      assert.equal((await refresh.json()).error, 'invalid_grant');
      const after = await (await owner.request(`/admin/${demo}/connected`)).text();
      assert.ok(!after.includes(`grant=${grant.grant_id}"`));
    });

    it("an operator cannot revoke another school's grant through their own school", async () => {
      const lecturer = { id: world.demo.lecturerId };
      await addRoles(t.runtime.db, other, lecturer.id, ['owner']);
      const loopback = await t.request('/api/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'CLI', redirect_uris: ['http://127.0.0.1/callback'] }),
      });
      const clientId = (await loopback.json()).client_id;
      const tokens = await obtainTokens(t, {
        clientId,
        scopes: ['openid', 'courses:read'],
        user: 'lecturer@example.com',
        orgId: other,
      });
      const grant = await t.runtime.db
        .selectFrom('oauth_tokens')
        .select(['grant_id', 'school_id'])
        .where('token_hash', '=', sha256(tokens.access_token))
        .executeTakeFirstOrThrow();
      assert.equal(grant.school_id, other);
      const confirm = await owner.request(`/admin/${demo}/connected/revoke?grant=${grant.grant_id}`);
      assert.equal(confirm.status, 303);
      assert.equal(locationOf(confirm), `/admin/${demo}/connected?done=not-found`);
      const res = await submit(owner, `/admin/${demo}/connected`, `/admin/${demo}/connected/revoke`, {
        grant: grant.grant_id,
      });
      assert.equal(locationOf(res), `/admin/${demo}/connected?done=not-found`);
      assert.equal(await userinfoStatus(t, tokens.access_token), 200);
    });
  });
});
