/**
 * The eight MCP sign-in journeys: each SDK generation × signing in up front with
 * the SDK's exported `auth()` or after a 401 × an operator agent (loopback registration) or a
 * member agent (the school's member app). Each ends signed in after exactly one consent, with
 * the tools of its audience. Spec §1: a client must not depend on a challenge to discover.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO_MEMBER_APP_ID } from '../../src/domain/demo/demo-seed.ts';
import { formatScopes, MCP_CHALLENGE_SCOPES } from '../../src/oauth/scopes.ts';
import { Browser } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';
import { type LiveApp, startLiveApp } from './harness.ts';
import { BrowserPlayingProvider } from './oauth-agent.ts';
import { type McpSdk, V1, V2 } from './sdk-clients.ts';

const AUDIENCES = {
  operator: {
    user: 'owner@example.com',
    clientId: undefined,
    tool: 'courses_list',
    listed: ['courses_list', 'coupons_list', 'members_list'],
    unlisted: ['my_courses', 'coupons_create'],
    granted: formatScopes(MCP_CHALLENGE_SCOPES),
  },
  member: {
    user: 'student@example.com',
    clientId: DEMO_MEMBER_APP_ID,
    tool: 'my_courses',
    listed: ['my_courses', 'my_orders', 'my_course_progress'],
    unlisted: ['courses_list', 'record_progress'],
    granted: 'openid account:read',
  },
} as const;

describe('MCP sign-in journeys: both SDK generations, up front or on a 401, operator or member', () => {
  let live: LiveApp;
  before(async () => {
    live = await startLiveApp();
    await createWorld(live.t);
  });
  after(() => live.close());

  for (const sdk of [V1, V2] as McpSdk[]) {
    for (const audience of ['operator', 'member'] as const) {
      const a = AUDIENCES[audience];

      it(`${sdk.name}, ${audience}: auth() before any request → one consent → the ${audience} tools`, async () => {
        const provider = new BrowserPlayingProvider(new Browser(live.t), a.user, { clientId: a.clientId });
        assert.equal(await sdk.auth(provider, live.mcpUrl), 'REDIRECT');
        assert.equal(await sdk.auth(provider, live.mcpUrl, provider.takeCallback()), 'AUTHORIZED');
        // No scope was asked for (the resource metadata lists none): the audience default applies.
        const asked = provider.authorizationUrls[0];
        assert.equal(asked.searchParams.get('scope'), null, asked.toString());
        assert.equal(provider.saved?.scope, a.granted);
        const session = await sdk.connect(live.mcpUrl, provider);
        const tools = await session.listTools();
        for (const name of a.listed) assert.ok(tools.includes(name), `${name} in ${tools.join(' ')}`);
        for (const name of a.unlisted) assert.ok(!tools.includes(name), `${name} not listed`);
        const result = await session.call(a.tool);
        assert.equal(result.isError, undefined, JSON.stringify(result));
        assert.equal(provider.consentPages.length, 1, 'exactly one consent');
        assert.equal(provider.authorizationUrls.length, 1);
        await session.close();
      });

      it(`${sdk.name}, ${audience}: anonymous → ${a.tool} → 401 → one consent → the ${audience} tools`, async () => {
        const provider = new BrowserPlayingProvider(new Browser(live.t), a.user, { clientId: a.clientId });
        const session = await sdk.connect(live.mcpUrl, provider);
        assert.ok(!(await session.listTools()).includes(a.tool), 'anonymous: public tools only');
        const result = await session.call(a.tool);
        assert.equal(result.isError, undefined, JSON.stringify(result));
        const tools = await session.listTools();
        for (const name of a.listed) assert.ok(tools.includes(name), `${name} in ${tools.join(' ')}`);
        for (const name of a.unlisted) assert.ok(!tools.includes(name), `${name} not listed`);
        assert.equal(provider.consentPages.length, 1, 'exactly one consent');
        await session.close();
      });
    }
  }

  it('step-up, v2: a write tool answers 403 naming its scope; one more consent; the call goes through', async () => {
    const provider = new BrowserPlayingProvider(new Browser(live.t), 'owner@example.com');
    assert.equal(await V2.auth(provider, live.mcpUrl), 'REDIRECT');
    await V2.auth(provider, live.mcpUrl, provider.takeCallback());
    const session = await V2.connect(live.mcpUrl, provider);
    const created = await session.call('coupons_create', { code: 'STEPV2', kind: 'percent', percent_off: 5 });
    assert.equal(created.isError, undefined, JSON.stringify(created));
    assert.equal(provider.consentPages.length, 2, 'one more consent');
    assert.ok(provider.saved?.scope?.split(' ').includes('coupons:write'));
    assert.ok(provider.saved?.scope?.split(' ').includes('courses:read'), 'the read scopes are kept');
    await session.close();
  });

  it('step-up, v1: the SDK refreshes and gives up (typescript-sdk #2255); the /auth.md workaround signs in again with the union', async () => {
    const provider = new BrowserPlayingProvider(new Browser(live.t), 'owner@example.com');
    assert.equal(await V1.auth(provider, live.mcpUrl), 'REDIRECT');
    await V1.auth(provider, live.mcpUrl, provider.takeCallback());
    const session = await V1.connect(live.mcpUrl, provider);
    const args = { code: 'STEPV1', kind: 'percent', percent_off: 5 };
    const error = await session.call('coupons_create', args).then(
      () => undefined,
      (err: unknown) => err as Error & { code?: number },
    );
    assert.equal(error?.code, 403, String(error));
    assert.match(String(error?.message), /403 after trying upscoping/);
    assert.equal(provider.consentPages.length, 1, 'the v1 client never asked the user');
    // The workaround: drop the tokens, sign in for what you hold plus the challenge's scope.
    const held = provider.saved?.scope ?? '';
    provider.invalidateCredentials('tokens');
    assert.equal(await V1.auth(provider, live.mcpUrl, undefined, `${held} coupons:write`), 'REDIRECT');
    assert.equal(await V1.auth(provider, live.mcpUrl, provider.takeCallback()), 'AUTHORIZED');
    const created = await session.call('coupons_create', args);
    assert.equal(created.isError, undefined, JSON.stringify(created));
    assert.equal(provider.consentPages.length, 2);
    await session.close();
  });
});
