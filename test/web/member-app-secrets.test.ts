/**
 * Member-app client secrets: shown once after a POST-redirect-GET through a sealed,
 * single-use session flash; rotation keeps the replaced secret valid for an overlap at every
 * endpoint that authenticates clients (RFC 6749 §2.3.1 token, RFC 7009 §2.1 revocation, RFC 7662
 * §2.1 introspection), then only the new one; security events for create, rotate and delete.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { findSchoolBySubdomain, setBetaFeature } from '../../src/domain/school/schools.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { FLASH_SECONDS } from '../../src/http/flash.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import { HOUR, SECOND } from '../support/clock.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';
import { type Browser, obtainCode, tokenRequest } from '../support/oauth-flow.ts';
import { assertPageHeaders, locationOf, signedIn, submit } from './pages-support.ts';

const B = TEST_BASE_URL;
const REDIRECT = 'https://server.example/cb';
const secretOf = (html: string) => /id="client-secret">([^<]+)</.exec(html)?.[1];
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** Creates a confidential app through the form, follows the redirect and reads the secret once. */
async function createConfidential(owner: Browser, school: string, name: string) {
  const res = await submit(owner, `/admin/${school}/apps/new`, `/admin/${school}/apps`, {
    name,
    redirect_uris: REDIRECT,
    auth_method: 'client_secret_post',
    scope: ['openid', 'account:read'],
  });
  assert.equal(res.status, 303);
  const location = locationOf(res);
  const clientId = /\/apps\/(app_[0-9a-z]{26})\/secret$/.exec(location)?.[1];
  assert.ok(clientId, location);
  const secret = secretOf(await (await owner.request(location)).text());
  assert.ok(secret);
  return { clientId, secret, location };
}

/** Rotates through the form and reads the new secret from the page the redirect leads to. */
async function rotate(owner: Browser, school: string, clientId: string) {
  const page = `/admin/${school}/apps/${clientId}`;
  const res = await submit(owner, page, `${page}/rotate-secret`, {});
  assert.equal(res.status, 303);
  assert.equal(locationOf(res), `${page}/secret`);
  const shown = await owner.request(`${page}/secret`);
  assert.equal(shown.status, 200);
  const html = await shown.text();
  return { secret: secretOf(html)!, html };
}

describe('member-app secrets: shown once, rotated with an overlap', () => {
  let t: LoggedTestApp;
  let demo: string;
  let other: string;
  let owner: Browser;

  before(async () => {
    t = await createLoggedTestApp();
    await seedDemoData(t.runtime.db);
    demo = (await findSchoolBySubdomain(t.runtime.db, 'demo'))!.id;
    other = (await findSchoolBySubdomain(t.runtime.db, 'other'))!.id;
    owner = await signedIn(t, 'owner@example.com');
  });
  after(() => t.close());

  /** Tokens for the app from a real authorization, exchanged with `secret`. */
  async function tokensFor(clientId: string, secret: string) {
    const { code, verifier, redirectUri } = await obtainCode(t, {
      clientId,
      redirectUri: REDIRECT,
      scopes: ['openid', 'account:read'],
      resource: B,
    });
    const res = await tokenRequest(t, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      client_secret: secret,
      code_verifier: verifier,
      resource: B,
    });
    assert.equal(res.status, 200);
    return (await res.json()) as { access_token: string; refresh_token: string };
  }

  const form = (path: string, fields: Record<string, string>, authorization?: string) =>
    t.request(path, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(authorization ? { authorization } : {}),
      },
      body: new URLSearchParams(fields).toString(),
    });

  /** Status of introspection of `token` by the client presenting `secret` (Basic or body). */
  const introspect = (clientId: string, secret: string, token: string, how: 'basic' | 'body') =>
    how === 'basic'
      ? form('/api/oauth/introspect', { token }, basic(clientId, secret))
      : form('/api/oauth/introspect', { token, client_id: clientId, client_secret: secret });

  /** Runs `work` a second after the default 24-hour overlap has ended. */
  const afterOverlap = <T>(work: () => Promise<T>) => t.clock.travel(24 * HOUR + SECOND, work);

  it('during the overlap both secrets authenticate at token, introspection and revocation; after it only the new one', async () => {
    const { clientId, secret: oldSecret } = await createConfidential(owner, demo, 'Overlap App');
    const tokens = await tokensFor(clientId, oldSecret);
    const { secret: newSecret, html } = await rotate(owner, demo, clientId);
    assert.notEqual(newSecret, oldSecret);
    // The page states until when the previous secret works: 24 hours from now by default.
    const until = /The previous one keeps working until <time datetime="([^"]+)">/.exec(html)?.[1];
    assert.ok(until);
    const hours = (Date.parse(until) - t.clock.now()) / 3_600_000;
    assert.ok(hours > 23.9 && hours <= 24, `overlap ${hours} h`);
    const appPage = await (await owner.request(`/admin/${demo}/apps/${clientId}`)).text();
    assert.ok(appPage.includes(`The previous secret keeps working until <time datetime="${until}">`));
    assert.match(appPage, /the current one keeps working for 24 hours/);
    assert.ok(!appPage.includes(newSecret) && !appPage.includes(oldSecret));

    for (const secret of [oldSecret, newSecret]) {
      for (const how of ['basic', 'body'] as const) {
        const res = await introspect(clientId, secret, tokens.access_token, how);
        assert.equal(res.status, 200, `${how} with ${secret === oldSecret ? 'old' : 'new'} secret`);
        assert.equal((await res.json()).active, true);
      }
    }
    const second = await tokensFor(clientId, oldSecret);

    await afterOverlap(async () => {
      for (const how of ['basic', 'body'] as const) {
        const old = await introspect(clientId, oldSecret, tokens.access_token, how);
        assert.equal(old.status, 401, how);
        assert.equal((await old.json()).error, 'invalid_client');
      }
      const refreshOld = await tokenRequest(t, {
        grant_type: 'refresh_token',
        refresh_token: second.refresh_token,
        client_id: clientId,
        client_secret: oldSecret,
      });
      assert.equal(refreshOld.status, 401);
      assert.equal((await refreshOld.json()).error, 'invalid_client');
      const revokeOld = await form(
        '/api/oauth/revoke',
        { token: second.refresh_token },
        basic(clientId, oldSecret),
      );
      assert.equal(revokeOld.status, 401);
      assert.match(revokeOld.headers.get('www-authenticate') ?? '', /^Basic realm="Lectern"/);
      const revokeNew = await form(
        '/api/oauth/revoke',
        { token: second.refresh_token },
        basic(clientId, newSecret),
      );
      assert.equal(revokeNew.status, 200);
      // A day on, the owner's browser session has gone idle: they sign in again to look (which
      // also clears their sessions that are dead at that instant, the shared one included).
      const later = await signedIn(t, 'owner@example.com');
      const page = await later.request(`/admin/${demo}/apps/${clientId}`);
      assert.equal(page.status, 200);
      assert.ok(
        !(await page.text()).includes('The previous secret keeps working'),
        'an ended overlap is not shown',
      );
    });
    owner = await signedIn(t, 'owner@example.com');
  });

  it('rotating again during an overlap ends the oldest secret at once', async () => {
    const { clientId, secret: first } = await createConfidential(owner, demo, 'Twice Rotated');
    const tokens = await tokensFor(clientId, first);
    const { secret: secondSecret } = await rotate(owner, demo, clientId);
    const { secret: third } = await rotate(owner, demo, clientId);
    const status = async (secret: string) =>
      (await introspect(clientId, secret, tokens.access_token, 'body')).status;
    assert.equal(await status(first), 401, 'the oldest secret died at the second rotation');
    assert.equal(await status(secondSecret), 200, 'the one just replaced has the new overlap');
    assert.equal(await status(third), 200);
  });

  it('the secret is held sealed, for one session, once, and for minutes only', async () => {
    const page = `/admin/${demo}/apps/new`;
    const res = await submit(owner, page, `/admin/${demo}/apps`, {
      name: 'Flash App',
      redirect_uris: REDIRECT,
      auth_method: 'client_secret_post',
      scope: 'openid',
    });
    const location = locationOf(res);
    const rows = await t.runtime.db.selectFrom('session_flashes').select(['name', 'sealed']).execute();
    assert.equal(rows.length, 1);
    assert.match(rows[0].sealed, /^v1\./);
    // The same owner in another browser (another session) cannot collect it.
    const elsewhere = await signedIn(t, 'owner@example.com');
    const stolen = await elsewhere.request(location);
    assert.equal(stolen.status, 410);
    assert.equal(secretOf(await stolen.text()), undefined);
    const shown = await owner.request(location);
    assert.equal(shown.status, 200);
    const secret = secretOf(await shown.text())!;
    assert.ok(!rows[0].sealed.includes(secret));
    assert.equal((await t.runtime.db.selectFrom('session_flashes').selectAll().execute()).length, 0);

    // A flash left unread past its expiry shows nothing.
    const clientId = /\/apps\/([^/]+)\/secret$/.exec(location)![1];
    await submit(
      owner,
      `/admin/${demo}/apps/${clientId}`,
      `/admin/${demo}/apps/${clientId}/rotate-secret`,
      {},
    );
    const late = await t.clock.travel((FLASH_SECONDS + 1) * SECOND, () => owner.request(location));
    assert.equal(late.status, 410);
    assertPageHeaders(late);
    assert.match(await late.text(), /rotate the secret on the app/);
  });

  it('a forged rotation or revocation without the CSRF token is refused (403) and changes nothing', async () => {
    const { clientId } = await createConfidential(owner, demo, 'Forged App');
    const hash = () =>
      t.runtime.db
        .selectFrom('oauth_clients')
        .select(['secret_hash', 'previous_secret_hash'])
        .where('id', '=', clientId)
        .executeTakeFirstOrThrow();
    const before = await hash();
    const forged = await owner.postForm(`/admin/${demo}/apps/${clientId}/rotate-secret`, {});
    assert.equal(forged.status, 403);
    assert.deepEqual(await hash(), before);
    assert.equal(
      await t.runtime.db.selectFrom('session_flashes').select('name').executeTakeFirst(),
      undefined,
    );
    const revoke = await owner.postForm(`/admin/${demo}/connected/revoke`, { grant: 'grt_x' });
    assert.equal(revoke.status, 403);
  });

  it('two simultaneous loads of the secret page show the secret once between them', async () => {
    const res = await submit(owner, `/admin/${demo}/apps/new`, `/admin/${demo}/apps`, {
      name: 'Raced App',
      redirect_uris: REDIRECT,
      auth_method: 'client_secret_post',
      scope: 'openid',
    });
    const location = locationOf(res);
    const pages = await Promise.all([owner.request(location), owner.request(location)]);
    assert.deepEqual(pages.map((p) => p.status).sort(), [200, 410]);
    const bodies = await Promise.all(pages.map((p) => p.text()));
    assert.equal(bodies.filter((b) => secretOf(b) !== undefined).length, 1);
  });

  it('logs created, secret_rotated and deleted with school, client and actor, never the secret', async () => {
    const ownerId = (await findUserByEmail(t.runtime.db, 'owner@example.com'))!.id;
    const { clientId, secret, location } = await createConfidential(owner, demo, 'Logged App');
    const { secret: rotated } = await rotate(owner, demo, clientId);
    const del = await submit(
      owner,
      `/admin/${demo}/apps/${clientId}/delete`,
      `/admin/${demo}/apps/${clientId}/delete`,
      {},
    );
    assert.equal(locationOf(del), `/admin/${demo}/apps?done=deleted`);
    const events = t.logs.filter((l) => l.clientId === clientId && String(l.event).startsWith('member_app.'));
    assert.deepEqual(
      events.map((e) => [e.event, e.schoolId, e.actorUserId, e.level, typeof e.requestId]),
      [
        ['member_app.created', demo, ownerId, 30, 'string'],
        ['member_app.secret_rotated', demo, ownerId, 30, 'string'],
        ['member_app.deleted', demo, ownerId, 30, 'string'],
      ],
    );
    const all = JSON.stringify(t.logs);
    assert.ok(!all.includes(secret) && !all.includes(rotated), 'no secret in any log line');
    assert.ok(!location.includes(secret));
  });

  it("an operator of one school can neither see, rotate nor collect another school's secrets", async () => {
    const leo = await findUserByEmail(t.runtime.db, 'lecturer@example.com');
    await addRoles(t.runtime.db, other, leo!.id, ['owner']);
    await setBetaFeature(t.runtime.db, other, 'mcp_connections', true);
    const otherOwner = await signedIn(t, 'lecturer@example.com');
    const theirs = await createConfidential(otherOwner, other, 'Their App');
    const before = await t.runtime.db
      .selectFrom('oauth_clients')
      .select(['secret_hash', 'previous_secret_hash'])
      .where('id', '=', theirs.clientId)
      .executeTakeFirstOrThrow();
    // Through the owner's own school path: the app is not found; through theirs: not an operator.
    const viaDemo = `/admin/${demo}/apps/${theirs.clientId}`;
    assert.equal((await owner.request(`${viaDemo}/secret`)).status, 404);
    assert.equal((await submit(owner, `/admin/${demo}/apps`, `${viaDemo}/rotate-secret`, {})).status, 404);
    assert.equal((await owner.request(`/admin/${other}/apps/${theirs.clientId}/secret`)).status, 403);
    assert.equal((await owner.request(`/admin/${other}/apps/${theirs.clientId}`)).status, 403);
    const after = await t.runtime.db
      .selectFrom('oauth_clients')
      .select(['secret_hash', 'previous_secret_hash'])
      .where('id', '=', theirs.clientId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(after, before);
  });

  it('while MCP connections are off an app can still be rotated and deleted, and its client can still revoke (RFC 7009 §2.1) but gets no tokens', async () => {
    const { clientId, secret } = await createConfidential(owner, demo, 'Paused App');
    const tokens = await tokensFor(clientId, secret);
    const off = await submit(owner, `/admin/${demo}`, `/admin/${demo}/beta`, { enabled: 'off' });
    assert.equal(off.status, 303);
    const refused = await tokenRequest(t, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      client_secret: secret,
    });
    assert.equal(refused.status, 400);
    assert.equal((await refused.json()).error, 'unauthorized_client');
    const { secret: rotated } = await rotate(owner, demo, clientId);
    const revoked = await form(
      '/api/oauth/revoke',
      { token: tokens.refresh_token },
      basic(clientId, rotated),
    );
    assert.equal(revoked.status, 200);
    const del = await submit(
      owner,
      `/admin/${demo}/apps/${clientId}/delete`,
      `/admin/${demo}/apps/${clientId}/delete`,
      {},
    );
    assert.equal(locationOf(del), `/admin/${demo}/apps?done=deleted`);
    assert.equal((await owner.request(`/admin/${demo}/apps/${clientId}`)).status, 404);
    await submit(owner, `/admin/${demo}`, `/admin/${demo}/beta`, { enabled: 'on' });
  });

  it('hostile input on the new pages gets a clear page, never a 500', async () => {
    for (const path of [
      `/admin/${demo}/apps/${'x'.repeat(3000)}/secret`,
      `/admin/${demo}/apps/%00/secret`,
      `/admin/${demo}/apps/demo-member-app/secret`,
      `/admin/${demo}/apps/demo-member-app?done=updated&revoked=99999999999`,
      `/admin/${demo}/apps/demo-member-app?done=updated&revoked=-1`,
      `/admin/${demo}/connected/revoke?grant=${'%00'.repeat(10)}`,
      `/admin/${demo}/connected/revoke`,
      '/account/connections/revoke?grant=%ff%fe',
    ]) {
      const res = await owner.request(path);
      // A NUL is refused before any query (400, store/text-guard.ts); the rest find nothing.
      assert.ok([200, 303, 400, 404, 410].includes(res.status), `${path}: ${res.status}`);
      const body = await res.text();
      assert.ok(!/\.ts:\d+|TypeError|SyntaxError/.test(body), `${path} leaks a stack trace`);
      assert.ok(!/revoked were|connection\(s\) held/.test(body), path);
    }
  });
});

describe('CLIENT_SECRET_OVERLAP_HOURS=0: a rotated secret stops at once', () => {
  let t: TestApp;
  after(() => t?.close());

  it('the old secret is refused right after the rotation, and the page says so', async () => {
    t = await createTestApp({ CLIENT_SECRET_OVERLAP_HOURS: '0' });
    await seedDemoData(t.runtime.db);
    const demo = (await findSchoolBySubdomain(t.runtime.db, 'demo'))!.id;
    const owner = await signedIn(t, 'owner@example.com');
    const { clientId, secret } = await createConfidential(owner, demo, 'No Overlap');
    const appPage = await (await owner.request(`/admin/${demo}/apps/${clientId}`)).text();
    assert.match(appPage, /Rotating makes a new secret and stops the current one at once/);
    const { secret: fresh, html } = await rotate(owner, demo, clientId);
    assert.match(html, /the old one no longer works/);
    const { code, verifier } = await obtainCode(t, {
      clientId,
      redirectUri: REDIRECT,
      scopes: ['openid'],
      resource: B,
    });
    const fields = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: B,
    };
    const old = await tokenRequest(t, { ...fields, client_secret: secret });
    assert.equal(old.status, 401);
    assert.equal((await tokenRequest(t, { ...fields, client_secret: fresh })).status, 200);
  });
});
