import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DEMO_MEMBER_APP_ID } from '../../src/domain/demo/demo-seed.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { MCP_CHALLENGE_SCOPES } from '../../src/oauth/scopes.ts';
import { Browser } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';
import { type LiveApp, startLiveApp } from './harness.ts';
import { askedScopes, BrowserPlayingProvider, callWithAuth, type Text } from './oauth-agent.ts';

describe("an agent's whole journey with the client SDK's OAuth support", () => {
  let live: LiveApp;
  let requests: Array<{ method: string; path: string; status: number; auth: boolean }>;
  let loggingFetch: typeof fetch;
  before(async () => {
    live = await startLiveApp();
    await createWorld(live.t);
    requests = [];
    loggingFetch = async (input, init) => {
      const res = await fetch(input, init);
      const url = new URL(input instanceof Request ? input.url : String(input));
      const auth = new Headers(init?.headers).has('authorization');
      requests.push({ method: init?.method ?? 'GET', path: url.pathname, status: res.status, auth });
      return res;
    };
  });
  after(() => live.close());

  it('operator: anonymous → 401 → discovery → loopback registration → consent → token → tools → step-up on 403', async () => {
    const provider = new BrowserPlayingProvider(new Browser(live.t), 'owner@example.com');
    const transport = new StreamableHTTPClientTransport(live.mcpUrl, {
      authProvider: provider,
      fetch: loggingFetch,
    });
    const client = new Client(
      { name: 'journey-agent', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(transport);
    assert.equal(transport.protocolVersion, '2026-07-28');

    // Anonymous first: only the public tools.
    const anonymous = await client.listTools();
    assert.deepEqual(anonymous.tools.map((t) => t.name).sort(), [
      'get_course_outline',
      'how_to_authenticate',
      'list_schools',
      'list_upcoming_events',
      'search_courses',
    ]);
    const catalogue = await client.callTool({ name: 'search_courses', arguments: { school: 'demo' } });
    assert.equal(catalogue.isError, undefined);

    // A protected tool: 401 → the SDK discovers, registers, authorizes (browser), we finish.
    requests.length = 0;
    const coupons = await callWithAuth(client, transport, provider, 'coupons_list', {});
    assert.equal(coupons.isError, undefined, JSON.stringify(coupons));
    assert.ok(Array.isArray((coupons.structuredContent as { data: unknown[] }).data));
    const paths = requests.map((r) => `${r.method} ${r.path} ${r.status}`);
    assert.equal(paths[0], 'POST /mcp 401');
    assert.ok(paths.includes('GET /.well-known/oauth-protected-resource/mcp 200'), paths.join('\n'));
    assert.ok(
      paths.some((p) =>
        /^GET \/\.well-known\/(oauth-authorization-server|openid-configuration) 200$/.test(p),
      ),
      paths.join('\n'),
    );
    assert.ok(paths.includes('POST /api/oauth/register 201'), paths.join('\n'));
    assert.ok(paths.includes('POST /api/oauth/token 200'), paths.join('\n'));
    assert.equal(paths[paths.length - 1], 'POST /mcp 200');
    assert.equal(requests.filter((r) => r.path === '/api/oauth/register').length, 1);
    assert.match(provider.info?.client_id ?? '', /.+/);

    // The authorization request asked for the challenge's scopes, bound to this resource.
    const authorize = provider.authorizationUrls[0];
    assert.equal(authorize.origin + authorize.pathname, `${live.baseUrl}/oauth/authorize`);
    assert.deepEqual(askedScopes(authorize), [...MCP_CHALLENGE_SCOPES].sort());
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(
      authorize.searchParams.get('resource'),
      `${live.baseUrl}/mcp`,
      'the MCP endpoint’s own resource (RFC 9728 §3.3)',
    );
    assert.match(provider.consentPages[0] ?? '', /Lectern MCP test agent/);

    // With the token: the read tools its scopes allow, no write tool.
    const listed = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(listed.includes('coupons_list'));
    assert.ok(!listed.includes('coupons_create'));

    // Step-up: a write tool answers 403 insufficient_scope; the SDK re-authorizes with the union.
    const created = await callWithAuth(client, transport, provider, 'coupons_create', {
      code: 'AGENT10',
      kind: 'percent',
      percent_off: 10,
    });
    assert.equal(created.isError, undefined, JSON.stringify(created));
    assert.equal((created.structuredContent as { code: string }).code, 'AGENT10');
    const stepUp = provider.authorizationUrls[1];
    const stepUpScopes = askedScopes(stepUp);
    assert.ok(stepUpScopes.includes('coupons:write'), stepUp.toString());
    assert.ok(stepUpScopes.includes('courses:read'), 'the step-up keeps the scopes already granted');
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'coupons_create'));
    assert.equal(
      requests.filter((r) => r.path === '/api/oauth/register').length,
      1,
      'the registered client is reused for the step-up',
    );
    await client.close();
  });

  it('a client that signs in only on a 401: how_to_authenticate sign_in=true → OAuth → signed in → more tools', async () => {
    const provider = new BrowserPlayingProvider(new Browser(live.t), 'owner@example.com');
    const transport = new StreamableHTTPClientTransport(live.mcpUrl, { authProvider: provider });
    const client = new Client({ name: 'sign-in-agent', version: '1.0.0' });
    await client.connect(transport);
    assert.equal((await client.listTools()).tools.length, 5);
    const res = await callWithAuth(client, transport, provider, 'how_to_authenticate', { sign_in: true });
    const out = res.structuredContent as {
      signedIn: { audience: string; school: { subdomain: string }; scopes: string };
    };
    assert.equal(out.signedIn.audience, 'operator');
    assert.equal(out.signedIn.school.subdomain, 'demo');
    assert.match(
      (res.content as Text)[0].text,
      /^Signed in as Olivia Owner <owner@example\.com>, operator \(owner\) of Demo Academy \(demo\), through the loopback client \S+, with: openid profile email/,
    );
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(tools.includes('courses_list') && tools.includes('members_list'), tools.join(' '));
    await client.close();
  });

  it('member: a member app client_id → 401 asking for account:read → consent → my tools → step-up to account:write', async () => {
    const provider = new BrowserPlayingProvider(new Browser(live.t), 'student@example.com', {
      clientId: DEMO_MEMBER_APP_ID,
    });
    requests.length = 0;
    const transport = new StreamableHTTPClientTransport(live.mcpUrl, {
      authProvider: provider,
      fetch: loggingFetch,
    });
    const client = new Client({ name: 'member-agent', version: '1.0.0' });
    await client.connect(transport);
    assert.equal(transport.protocolVersion, '2025-11-25');

    const mine = await callWithAuth(client, transport, provider, 'my_courses', {});
    assert.equal(mine.isError, undefined, JSON.stringify(mine));
    const enrollments = (mine.structuredContent as { enrollments: Array<{ course: { slug: string } }> })
      .enrollments;
    assert.ok(enrollments.length > 0, 'the demo student is enrolled in courses');
    assert.equal(provider.info?.client_id, DEMO_MEMBER_APP_ID, 'a member app is not registered, it is given');
    assert.equal(requests.filter((r) => r.path === '/api/oauth/register').length, 0);
    const first = provider.authorizationUrls[0];
    assert.deepEqual(askedScopes(first), ['account:read', 'openid']);

    const demo = await findSchoolBySubdomain(live.t.runtime.db, 'demo');
    assert.ok(demo);
    const events = await client.callTool({ name: 'list_upcoming_events', arguments: { school: 'demo' } });
    const upcoming = (events.structuredContent as { events: Array<{ id: string }> }).events;
    assert.ok(upcoming.length > 0, 'the demo school has upcoming public events');

    const registered = await callWithAuth(client, transport, provider, 'register_for_event', {
      eventId: upcoming[upcoming.length - 1].id,
    });
    assert.equal(registered.isError, undefined, (registered.content as Text)[0]?.text);
    assert.deepEqual(askedScopes(provider.authorizationUrls[1]), ['account:read', 'account:write', 'openid']);
    await client.close();
  });
});
