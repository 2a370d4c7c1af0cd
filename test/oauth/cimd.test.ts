/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, product.md §3).
 * A local HTTPS server with a throw-away certificate plays the client's web site; only the app
 * configured for it trusts that certificate and that one loopback address. Every SSRF case runs
 * against the real guard.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/crypto/passwords.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { isPublicAddress } from '../../src/http/ssrf.ts';
import {
  CIMD_PRUNE_AFTER_SECONDS,
  checkCimdUrl,
  lastCimdRefusal,
  pruneStale,
} from '../../src/oauth/clients/cimd.ts';
import {
  CIMD_MAX_TTL_SECONDS,
  CIMD_TIMEOUT_MS,
  CimdError,
  cacheSeconds,
  fetchMetadataDocument,
} from '../../src/oauth/clients/cimd-fetch.ts';
import { redirectUriMatches, resolveClient } from '../../src/oauth/clients/clients.ts';
import { createGrant } from '../../src/oauth/grants/grants.ts';
import { isoNow } from '../../src/store/time.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { authorizeInBrowser, Browser, pkcePair } from '../support/oauth-flow.ts';
import { writeTestCertificate } from '../support/tls.ts';

const HOST = 'client.example';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

describe('Client ID Metadata Documents', () => {
  let dir: string;
  let cert: string;
  let server: Server;
  let port: number;
  const routes = new Map<string, Handler>();
  const hits = new Map<string, number>();
  let t: TestApp;
  let guarded: TestApp;

  const docUrl = (path: string) => `https://${HOST}:${port}${path}`;
  const serveJson = (path: string, body: unknown, headers: Record<string, string> = {}) => {
    routes.set(path, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', ...headers });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
    return docUrl(path);
  };
  const validDoc = (path: string, extra: Record<string, unknown> = {}) => ({
    client_id: docUrl(path),
    client_name: 'Example Agent',
    redirect_uris: [`https://${HOST}/callback`, 'http://127.0.0.1/cb'],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...extra,
  });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lectern-cimd-'));
    writeTestCertificate(dir, HOST);
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
      const path = req.url ?? '/';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const handler = routes.get(path);
      if (handler) return handler(req, res);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;

    t = await createTestApp(
      { CIMD_ALLOWED_HOSTS: HOST },
      {
        cimdFetch: {
          ca: cert,
          resolve: async (hostname) => (hostname === HOST ? [{ address: '127.0.0.1', family: 4 }] : []),
          allowAddress: '127.0.0.1',
        },
      },
    );
    guarded = await createTestApp({ OPEN_REGISTRATION: 'true' });
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.close();
    await guarded.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('the happy path', () => {
    it('fetches, validates and stores an unreviewed kind-cimd client; cached per Cache-Control', async () => {
      const url = serveJson('/oauth/client.json', validDoc('/oauth/client.json'), {
        'Cache-Control': 'max-age=120',
      });
      const client = await resolveClient(t.runtime, url);
      assert.deepEqual(client, {
        id: url,
        kind: 'cimd',
        name: 'Example Agent',
        schoolId: null,
        authMethod: 'none',
        secretHash: null,
        // A secret rotation's overlap (member apps): none for a public client.
        previousSecretHash: null,
        previousSecretExpiresAt: null,
        redirectUris: [`https://${HOST}/callback`, 'http://127.0.0.1/cb'],
        redirectUriPrefixes: [],
        allowedScopes: null,
        reviewed: false,
        applicationType: 'web',
      });
      const row = await t.runtime.db
        .selectFrom('oauth_clients')
        .selectAll()
        .where('id', '=', url)
        .executeTakeFirstOrThrow();
      const ttl = (Date.parse(row.metadata_expires_at!) - Date.now()) / 1000;
      assert.ok(ttl > 110 && ttl <= 120, `ttl ${ttl}`);
      assert.equal(JSON.parse(row.metadata).client_id, url);
      // Served from the stored row while fresh: no second fetch.
      assert.equal((await resolveClient(t.runtime, url))?.id, url);
      assert.equal(hits.get('/oauth/client.json'), 1);
      // Redirect rules apply as for any client: exact, or loopback on any port (RFC 8252 §7.3).
      assert.equal(redirectUriMatches(client!, `https://${HOST}/callback`), true);
      assert.equal(redirectUriMatches(client!, 'http://127.0.0.1:49152/cb'), true);
      assert.equal(redirectUriMatches(client!, `https://${HOST}/callback/x`), false);
    });

    it('refetches after the cache time, keeping an operator review', async () => {
      const path = '/refetch.json';
      const url = serveJson(path, validDoc(path));
      assert.ok(await resolveClient(t.runtime, url));
      // No endpoint marks a metadata-document client reviewed: that flag stays a direct write.
      await t.runtime.db.updateTable('oauth_clients').set({ reviewed: 1 }).where('id', '=', url).execute();
      serveJson(path, validDoc(path, { client_name: 'Renamed Agent' }));
      const again = await t.clock.travel((CIMD_MAX_TTL_SECONDS + 1) * 1000, () =>
        resolveClient(t.runtime, url),
      );
      assert.equal(hits.get(path), 2);
      assert.equal(again?.name, 'Renamed Agent');
      assert.equal(again?.reviewed, true);
    });

    it('one fetch serves concurrent lookups of the same URL', async () => {
      const path = '/concurrent.json';
      const url = docUrl(path);
      routes.set(path, (_req, res) => {
        setTimeout(() => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(validDoc(path)));
        }, 100);
      });
      const results = await Promise.all(Array.from({ length: 8 }, () => resolveClient(t.runtime, url)));
      assert.ok(results.every((c) => c?.id === url));
      assert.equal(hits.get(path), 1);
    });

    it('prunes unreviewed documents no grant uses, long after their cache time', async () => {
      // Each document is fetched at the instant that makes its cache time (60 s) end that long ago.
      const fetchedAgo = async (name: string, seconds: number) => {
        const url = serveJson(`/${name}.json`, validDoc(`/${name}.json`), { 'Cache-Control': 'max-age=60' });
        const client = await t.clock.travel(-(seconds + 60) * 1000, () => resolveClient(t.runtime, url));
        assert.equal(client?.id, url);
        return url;
      };
      const stale = CIMD_PRUNE_AFTER_SECONDS + 3600;
      const gone = await fetchedAgo('gone', stale);
      const reviewed = await fetchedAgo('reviewed', stale);
      const granted = await fetchedAgo('granted', stale);
      const recent = await fetchedAgo('recent', 3600);
      const db = t.runtime.db;
      // No endpoint marks a metadata-document client reviewed: that flag stays a direct write.
      await db.updateTable('oauth_clients').set({ reviewed: 1 }).where('id', '=', reviewed).execute();
      const user = await createUser(db, { email: 'prune@example.com', name: 'P', passwordHash: null });
      const school = await createSchool(db, { name: 'Prune', subdomain: 'prune' });
      await createGrant(db, {
        clientId: granted,
        userId: user.id,
        schoolId: school.id,
        audience: 'operator',
        scopes: ['openid'],
        resource: t.config.baseUrl,
        authTime: isoNow(),
      });
      const state = { prunedAt: 0 };
      await pruneStale(t.runtime, state);
      const left = await db
        .selectFrom('oauth_clients')
        .select('id')
        .where('id', 'in', [gone, reviewed, granted, recent])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        left.map((r) => r.id),
        [granted, recent, reviewed],
      );
      assert.ok(state.prunedAt > 0);
    });

    it('product.md §8, RFC 8252 §8.6: an unreviewed document client sees consent every time; a reviewed one may be remembered', async () => {
      const url = serveJson('/consent/client.json', validDoc('/consent/client.json'));
      const db = t.runtime.db;
      const user = await createUser(db, {
        email: 'cimd-owner@example.com',
        name: 'C',
        passwordHash: await hashPassword('cimd-password'),
      });
      const school = await createSchool(db, { name: 'Consent School', subdomain: 'consent' });
      await addRoles(db, school.id, user.id, ['owner']);
      const authorizeUrl = (prompt?: string) =>
        `/oauth/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: url,
          redirect_uri: `https://${HOST}/callback`,
          scope: 'openid courses:read',
          state: 's',
          code_challenge: pkcePair().challenge,
          code_challenge_method: 'S256',
          ...(prompt ? { prompt } : {}),
        })}`;
      const browser = new Browser(t);
      const first = await authorizeInBrowser(browser, authorizeUrl(), {
        user: 'cimd-owner@example.com',
        password: 'cimd-password',
      });
      assert.ok(first.location.searchParams.get('code'));
      const again = await browser.request(authorizeUrl());
      assert.equal(again.status, 200, 'unreviewed: the page again, despite the live grant');
      assert.match(await again.text(), /<strong>Lectern has not reviewed this app\.<\/strong>/);
      const none = await browser.request(authorizeUrl('none'));
      assert.equal(new URL(none.headers.get('location')!).searchParams.get('error'), 'consent_required');
      await db.updateTable('oauth_clients').set({ reviewed: 1 }).where('id', '=', url).execute();
      const reviewed = await browser.request(authorizeUrl());
      assert.equal(reviewed.status, 302, 'reviewed: remembered consent applies');
      assert.ok(new URL(reviewed.headers.get('location')!).searchParams.get('code'));
    });

    it('honours Cache-Control within [60 s, 24 h]', () => {
      assert.equal(cacheSeconds('max-age=5'), 60);
      assert.equal(cacheSeconds('public, max-age=3600'), 3600);
      assert.equal(cacheSeconds('max-age=999999999'), 86_400);
      assert.equal(cacheSeconds('no-store'), 60);
      assert.equal(cacheSeconds(undefined), 600);
    });
  });

  describe('document refusals (each leaves the client unknown)', () => {
    async function refused(path: string, reason: string): Promise<void> {
      const url = docUrl(path);
      assert.equal(await resolveClient(t.runtime, url), undefined);
      assert.equal(lastCimdRefusal(t.runtime, url), reason);
    }

    it('draft §4.1: the document client_id must equal its URL exactly', async () => {
      serveJson('/mismatch.json', validDoc('/other.json'));
      await refused('/mismatch.json', 'client_id_mismatch');
      serveJson('/case.json', validDoc('/case.json', { client_id: docUrl('/case.json').toUpperCase() }));
      await refused('/case.json', 'client_id_mismatch');
    });

    it('product.md §3: redirect_uris must be under the document host or loopback', async () => {
      serveJson('/foreign.json', validDoc('/foreign.json', { redirect_uris: ['https://evil.example/cb'] }));
      await refused('/foreign.json', 'invalid_redirect_uri');
      serveJson('/plain-http.json', validDoc('/plain-http.json', { redirect_uris: [`http://${HOST}/cb`] }));
      await refused('/plain-http.json', 'invalid_redirect_uri');
      serveJson(
        '/suffix.json',
        validDoc('/suffix.json', { redirect_uris: [`https://${HOST}.evil.example/cb`] }),
      );
      await refused('/suffix.json', 'invalid_redirect_uri');
      serveJson('/no-uris.json', validDoc('/no-uris.json', { redirect_uris: [] }));
      await refused('/no-uris.json', 'invalid_document');
    });

    it('no shared secrets (draft §4.1); private_key_jwt is served as a public client', async () => {
      for (const method of [
        'client_secret_post',
        'client_secret_basic',
        'client_secret_jwt',
        'tls_client_auth',
      ]) {
        const path = `/secret-${method}.json`;
        serveJson(path, validDoc(path, { token_endpoint_auth_method: method }));
        await refused(path, 'unsupported_auth_method');
      }
      const path = '/pkjwt.json';
      const url = serveJson(
        path,
        validDoc(path, {
          token_endpoint_auth_method: 'private_key_jwt',
          jwks_uri: `https://${HOST}/jwks.json`,
          grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
          application_type: 'browser',
        }),
      );
      const client = await resolveClient(t.runtime, url);
      assert.equal(client?.authMethod, 'none');
      assert.equal(client?.secretHash, null);
      assert.equal(client?.applicationType, 'web');
    });

    it('redirects are not followed', async () => {
      const target = serveJson('/target.json', validDoc('/redirect.json'));
      routes.set('/redirect.json', (_req, res) => res.writeHead(302, { Location: target }).end());
      await refused('/redirect.json', 'redirect_refused');
      assert.equal(hits.get('/target.json'), undefined);
    });

    it('at most 5 KB: refused by Content-Length, and by counting when streamed', async () => {
      const big = JSON.stringify(validDoc('/big.json', { padding: 'x'.repeat(6000) }));
      serveJson('/big.json', big);
      await refused('/big.json', 'too_large');
      let written = 0;
      routes.set('/stream.json', (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const timer = setInterval(() => {
          if (res.destroyed || written > 1_000_000) {
            clearInterval(timer);
            res.end();
            return;
          }
          written += 1024;
          res.write(' '.repeat(1024));
        }, 1);
      });
      await refused('/stream.json', 'too_large');
      // Reading stopped early: nowhere near the megabyte the server was willing to send.
      assert.ok(written < 200_000, `server wrote ${written} bytes`);
    });

    it(`gives up after ${CIMD_TIMEOUT_MS} ms`, async () => {
      routes.set('/slow.json', () => {});
      const started = Date.now();
      await refused('/slow.json', 'timeout');
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= CIMD_TIMEOUT_MS - 50 && elapsed < CIMD_TIMEOUT_MS + 1500, `elapsed ${elapsed}`);
    });

    it('needs a 200 JSON object', async () => {
      await refused('/missing.json', 'bad_status');
      routes.set('/html.json', (_req, res) =>
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>hi</p>'),
      );
      await refused('/html.json', 'bad_content_type');
      serveJson('/broken.json', '{"client_id":');
      await refused('/broken.json', 'invalid_json');
      serveJson('/array.json', [validDoc('/array.json')]);
      await refused('/array.json', 'invalid_document');
      serveJson('/types.json', validDoc('/types.json', { redirect_uris: 'https://client.example/cb' }));
      await refused('/types.json', 'invalid_document');
    });

    it('remembers a refusal for a while instead of refetching on every request', async () => {
      serveJson('/flaky.json', validDoc('/wrong.json'));
      await refused('/flaky.json', 'client_id_mismatch');
      await refused('/flaky.json', 'client_id_mismatch');
      assert.equal(hits.get('/flaky.json'), 1);
    });
  });

  describe('client_id URL rules (draft §3) and the allowlist', () => {
    it('refuses URLs that are not plain https document addresses, without fetching', async () => {
      const before = [...hits.values()].reduce((a, b) => a + b, 0);
      for (const [id, reason] of [
        [`https://${HOST}:${port}/c.json#frag`, 'invalid_url'],
        [`https://user:pw@${HOST}:${port}/c.json`, 'invalid_url'],
        [`https://${HOST}:${port}/c.json?x=1`, 'invalid_url'],
        [`https://${HOST}:${port}/`, 'invalid_url'],
        [`https://${HOST}:${port}/a/../c.json`, 'invalid_url'],
        [`https://CLIENT.example:${port}/c.json`, 'invalid_url'],
        [`https://other.example/c.json`, 'host_not_allowed'],
      ] as const) {
        assert.throws(() => checkCimdUrl(id, t.config.cimd), { reason }, id);
        assert.equal(await resolveClient(t.runtime, id), undefined, id);
      }
      // Plain http is never a metadata document; it is just an unknown client_id.
      assert.equal(await resolveClient(t.runtime, `http://${HOST}:${port}/c.json`), undefined);
      assert.equal(
        [...hits.values()].reduce((a, b) => a + b, 0),
        before,
      );
    });

    it('fetchMetadataDocument refuses anything but https', async () => {
      await assert.rejects(fetchMetadataDocument(new URL('http://example.com/c.json')), {
        reason: 'invalid_url',
      });
    });
  });

  describe('SSRF guard (real resolver, no test exemptions)', () => {
    it('classifies addresses: only public unicast passes', () => {
      for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001:81b::200e']) {
        assert.equal(isPublicAddress(a), true, a);
      }
      for (const a of [
        '127.0.0.1',
        '127.1.2.3',
        '10.0.0.1',
        '172.16.5.4',
        '192.168.1.1',
        '169.254.169.254',
        '100.64.0.1',
        '0.0.0.0',
        '224.0.0.1',
        '255.255.255.255',
        '198.18.0.1',
        '::1',
        '::',
        'fe80::1',
        'fd00::1',
        'fc00::1',
        'ff02::1',
        '::ffff:127.0.0.1',
        '::ffff:7f00:1',
        '::ffff:10.0.0.1',
        '::ffff:a9fe:a9fe',
        '64:ff9b::7f00:1',
        '2002:7f00:1::',
        '2001::1',
        '2001:db8::1',
        'not-an-ip',
      ]) {
        assert.equal(isPublicAddress(a), false, a);
      }
    });

    it('refuses private, loopback, link-local, unique-local and mapped targets before connecting', async () => {
      let connections = 0;
      const tcp = createTcpServer((s) => {
        connections++;
        s.destroy();
      });
      await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
      const tcpPort = (tcp.address() as AddressInfo).port;
      try {
        for (const url of [
          `https://127.0.0.1:${tcpPort}/c.json`,
          'https://10.0.0.1/c.json',
          'https://169.254.169.254/latest/meta-data/c.json',
          'https://[::1]/c.json',
          'https://[::ffff:127.0.0.1]/c.json',
          'https://[fe80::1]/c.json',
          'https://[fd12:3456::1]/c.json',
          'https://100.64.1.1/c.json',
          'https://0.0.0.0/c.json',
          `https://localhost:${tcpPort}/c.json`,
        ]) {
          await assert.rejects(fetchMetadataDocument(new URL(url)), (err: unknown) => {
            assert.ok(err instanceof CimdError, url);
            assert.equal(err.reason, 'blocked_address', url);
            return true;
          });
          const canonical = new URL(url).href;
          assert.equal(await resolveClient(guarded.runtime, canonical), undefined, url);
          assert.equal(lastCimdRefusal(guarded.runtime, canonical), 'blocked_address', url);
        }
        assert.equal(connections, 0);
      } finally {
        await new Promise((resolve) => tcp.close(resolve));
      }
    });

    it('refuses a host when any of its addresses is private (no hiding behind a public one)', async () => {
      const resolve = async () => [
        { address: '93.184.216.34', family: 4 as const },
        { address: '10.1.2.3', family: 4 as const },
      ];
      await assert.rejects(fetchMetadataDocument(new URL('https://mixed.example/c.json'), { resolve }), {
        reason: 'blocked_address',
      });
    });

    it('the test exemption covers exactly one address', async () => {
      await assert.rejects(
        fetchMetadataDocument(new URL('https://10.0.0.1/c.json'), { allowAddress: '127.0.0.1' }),
        { reason: 'blocked_address' },
      );
    });
  });
});
