/**
 * how_to_authenticate gives each audience the right next step. Only a member app (created by a
 * school's operator) may hold member scopes, and its default scopes are already the member ones,
 * so `as: "member"` starts no sign-in: every other client (registered, loopback, vendor,
 * metadata document) would be sent to a consent that ends in invalid_scope. It answers in
 * words instead; once signed in it says who the token speaks for and what the other audience
 * would need. Over HTTP with both SDK generations and their OAuth handling.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO_MEMBER_APP_ID } from '../../src/domain/demo/demo-seed.ts';
import { Browser } from '../support/oauth-flow.ts';
import { issueTestToken } from '../support/tokens.ts';
import { createWorld } from '../support/world.ts';
import { type LiveApp, postMcp, readJsonRpc, startLiveApp } from './harness.ts';
import { BrowserPlayingProvider } from './oauth-agent.ts';
import { type McpSdk, type ToolResult, V1, V2 } from './sdk-clients.ts';

interface Answer {
  signedIn: {
    audience: string;
    user: { name: string; email: string } | null;
    roles: string[];
    school: { name: string; subdomain: string } | null;
    client: { id: string; kind: string };
    scopes: string;
  } | null;
  nextStep: string;
}

function answerOf(result: ToolResult): Answer {
  assert.equal(result.isError, undefined, JSON.stringify(result));
  const answer = result.structuredContent as unknown as Answer;
  // The text a model reads starts with the same words.
  const text = (result.content as Array<{ text: string }>)[0].text;
  assert.ok(text.startsWith(answer.nextStep), text);
  return answer;
}

/** The member-app steps: how a school creates one, and that other clients are refused. */
function assertMemberAppSteps(nextStep: string, baseUrl: string): void {
  assert.match(nextStep, /need a member app, and only a school can create one/);
  assert.ok(nextStep.includes(`${baseUrl}/admin`), nextStep);
  assert.match(nextStep, /Settings → Beta features/);
  assert.match(nextStep, /Developers → OAuth applications/);
  assert.match(
    nextStep,
    /refused with invalid_scope to every other client: registered, loopback, vendor and metadata-document clients/,
  );
}

describe('how_to_authenticate: the right next step for each audience', () => {
  let live: LiveApp;
  let world: Awaited<ReturnType<typeof createWorld>>;
  before(async () => {
    live = await startLiveApp();
    world = await createWorld(live.t);
  });
  after(() => live.close());

  it('anonymous as=member with sign_in=true: 200 and the steps to a member app, no challenge', async () => {
    const res = await postMcp(live, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'how_to_authenticate', arguments: { sign_in: true, as: 'member' } },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('www-authenticate'), null);
    const result = (await readJsonRpc(res)).result as ToolResult;
    const answer = answerOf(result);
    assert.equal(answer.signedIn, null);
    assert.match(answer.nextStep, /^Not signed in, and no sign-in was started/);
    assertMemberAppSteps(answer.nextStep, live.baseUrl);
    assert.match(answer.nextStep, /call how_to_authenticate with sign_in=true and without as/);
  });

  it('signed in with a token: who it speaks for, and what the other audience would need', async () => {
    const { demo } = world;
    const operator = await issueTestToken(live.t, {
      userId: demo.ownerId,
      schoolId: demo.schoolId,
      audience: 'operator',
      scopes: ['openid', 'courses:read'],
    });
    const member = await issueTestToken(live.t, {
      userId: demo.studentId,
      schoolId: demo.schoolId,
      audience: 'member',
      scopes: ['openid', 'account:read'],
    });
    const ask = async (token: string, args: Record<string, unknown>) => {
      const res = await postMcp(
        live,
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'how_to_authenticate', arguments: args },
        },
        { Authorization: `Bearer ${token}` },
      );
      assert.equal(res.status, 200);
      return answerOf((await readJsonRpc(res)).result as ToolResult);
    };

    const asOperator = await ask(operator.token, { sign_in: true, as: 'member' });
    assert.deepEqual(asOperator.signedIn, {
      audience: 'operator',
      user: { name: 'Olivia Owner', email: 'owner@example.com' },
      roles: ['owner'],
      school: { name: 'Demo Academy', subdomain: 'demo' },
      client: { id: operator.clientId, kind: 'loopback' },
      scopes: 'openid courses:read',
    });
    assert.ok(
      asOperator.nextStep.startsWith(
        `Signed in as Olivia Owner <owner@example.com>, operator (owner) of Demo Academy (demo), through the loopback client ${operator.clientId}, with: openid courses:read.`,
      ),
      asOperator.nextStep,
    );
    assert.match(
      asOperator.nextStep,
      /This token cannot become a member token, and no sign-in was started\./,
    );
    assertMemberAppSteps(asOperator.nextStep, live.baseUrl);

    const asMember = await ask(member.token, {});
    assert.equal(asMember.signedIn?.audience, 'member');
    assert.deepEqual(asMember.signedIn?.client, { id: member.clientId, kind: 'member' });
    assert.match(
      asMember.nextStep,
      /^Signed in as .+ <student@example\.com>, member \(student\) of Demo Academy/,
    );
    assert.match(asMember.nextStep, /through the member app/);
    assert.match(asMember.nextStep, /Operator tools \(administering a school\) need an owner or admin/);
    assert.ok(asMember.nextStep.includes(`${live.baseUrl}/api/oauth/register`), asMember.nextStep);
    assert.match(asMember.nextStep, /A member app can never be granted operator scopes/);
    assert.doesNotMatch(asMember.nextStep, /cannot become/);

    const memberAsOperator = await ask(member.token, { sign_in: true, as: 'operator' });
    assert.match(
      memberAsOperator.nextStep,
      /This token cannot become an operator token, and no sign-in was started\. Operator tools/,
    );
  });

  for (const sdk of [V1, V2] as McpSdk[]) {
    it(`${sdk.name}: an operator client asking as=member gets words, not a sign-in; signed in, it learns who it is`, async () => {
      const provider = new BrowserPlayingProvider(new Browser(live.t), 'owner@example.com');
      const anonymous = await sdk.connect(live.mcpUrl, provider);
      const before = answerOf(await anonymous.call('how_to_authenticate', { sign_in: true, as: 'member' }));
      assert.equal(provider.authorizationUrls.length, 0, 'no sign-in was started');
      assert.equal(before.signedIn, null);
      assertMemberAppSteps(before.nextStep, live.baseUrl);
      await anonymous.close();

      // The operator signs in as operator clients do (a loopback registration, its default scopes).
      assert.equal(await sdk.auth(provider, live.mcpUrl), 'REDIRECT');
      assert.equal(await sdk.auth(provider, live.mcpUrl, provider.takeCallback()), 'AUTHORIZED');
      const session = await sdk.connect(live.mcpUrl, provider);
      const after = answerOf(await session.call('how_to_authenticate', { sign_in: true, as: 'member' }));
      assert.equal(after.signedIn?.audience, 'operator');
      assert.equal(after.signedIn?.user?.email, 'owner@example.com');
      assert.equal(after.signedIn?.client.kind, 'loopback');
      assert.equal(after.signedIn?.client.id, provider.info?.client_id);
      assert.match(after.nextStep, /This token cannot become a member token/);
      assertMemberAppSteps(after.nextStep, live.baseUrl);
      assert.equal(provider.consentPages.length, 1, 'one consent, for the operator sign-in only');
      await session.close();
    });

    it(`${sdk.name}: a member app follows the words: sign_in=true without as signs in with the member scopes`, async () => {
      const provider = new BrowserPlayingProvider(new Browser(live.t), 'student@example.com', {
        clientId: DEMO_MEMBER_APP_ID,
      });
      const session = await sdk.connect(live.mcpUrl, provider);
      const answer = answerOf(await session.call('how_to_authenticate', { sign_in: true }));
      assert.equal(provider.consentPages.length, 1);
      assert.equal(provider.saved?.scope, 'openid account:read');
      assert.equal(answer.signedIn?.audience, 'member');
      assert.deepEqual(answer.signedIn?.client, { id: DEMO_MEMBER_APP_ID, kind: 'member' });
      assert.match(
        answer.nextStep,
        /^Signed in as .+ <student@example\.com>, member \(student\) of Demo Academy/,
      );
      assert.match(answer.nextStep, /Operator tools \(administering a school\) need an owner or admin/);
      await session.close();
    });
  }
});
