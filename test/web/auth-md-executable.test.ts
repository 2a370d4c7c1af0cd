/**
 * /auth.md is executable: the document a live server serves is run as a reader would
 * run it. Every ```sh block, in document order, in one bash session (curl against the server,
 * openssl for PKCE); the authorization step by the test's browser, whose final address replaces
 * `<CALLBACK_URL>`; every ```js block with the values it names. Each step asserts the HTTP outcome
 * and the fields the prose around it promises, so a wrong path, parameter or field name fails here.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { auth as authV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { DEMO_MEMBER_APP_ID, DEMO_PASSWORD } from '../../src/domain/demo/demo-seed.ts';
import { formatScopes, MCP_CHALLENGE_SCOPES } from '../../src/oauth/scopes.ts';
import { type LiveApp, startLiveApp } from '../mcp/harness.ts';
import { BrowserPlayingProvider } from '../mcp/oauth-agent.ts';
import {
  type DocBlock,
  docBlocks,
  jsonRpcBody,
  runJsBlock,
  type ShellRun,
  ShellSession,
} from '../support/doc-runner.ts';
import { authorizeInBrowser, Browser } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';

/** What the steps share: the server, the shell session and what earlier steps learned. */
interface World {
  live: LiveApp;
  base: string;
  shell: ShellSession;
  /** The last authorization address a block printed (the reader opens it in a browser). */
  authorizeUrl?: string;
}

/** One executable block of the document: which one it is, and what running it must show. */
interface Step {
  /** The heading the block sits under. */
  readonly section: string;
  /** What the block must contain, so a moved or rewritten block is noticed. */
  readonly shows: RegExp;
  readonly check: (block: DocBlock, w: World) => Promise<void>;
}

const json = (body: string) => JSON.parse(body) as Record<string, unknown>;
const backticked = (prose: string) => [...prose.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);

/** Runs a shell block; asserts it exited 0 and made `statuses.length` curl calls with those statuses. */
async function sh(block: DocBlock, w: World, statuses: number[]): Promise<ShellRun> {
  let code = block.code;
  if (code.includes('<CALLBACK_URL>')) code = code.replace('<CALLBACK_URL>', await browserStep(block, w));
  const run = await w.shell.run(code);
  assert.equal(run.exitCode, 0, `exit ${run.exitCode}\n${run.stderr}`);
  assert.equal(run.stderr, '', run.stderr);
  assert.deepEqual(
    run.curls.map((c) => c.status),
    statuses,
    run.curls.map((c) => `${c.status} ${c.body}`).join('\n'),
  );
  const printed = run.stdout.split('\n').find((line) => line.startsWith(`${w.base}/oauth/authorize?`));
  if (printed) w.authorizeUrl = printed;
  return run;
}

/**
 * The reader's browser: opens the address the previous block printed, signs in as the demo user
 * the prose names, allows, and returns the address the browser was sent to.
 */
async function browserStep(block: DocBlock, w: World): Promise<string> {
  assert.ok(w.authorizeUrl, 'no authorization address was printed before the callback step');
  const user = /`([a-z-]+@example\.com)`/.exec(block.before)?.[1];
  assert.ok(user, `the prose before the callback step names no demo user: ${block.before}`);
  const password = /password `([^`]+)`/.exec(block.before)?.[1] ?? DEMO_PASSWORD;
  const { location } = await authorizeInBrowser(new Browser(w.live.t), w.authorizeUrl, { user, password });
  assert.equal(`${location.origin}${location.pathname}`, 'http://127.0.0.1:8765/callback');
  assert.ok(location.searchParams.get('code'), location.toString());
  w.authorizeUrl = undefined;
  return location.toString();
}

/** RFC 7636 §4.2: the challenge is BASE64URL(SHA256(verifier)), the verifier 43-128 characters. */
function assertPkce(run: ShellRun): void {
  const { VERIFIER, CHALLENGE } = run.vars;
  assert.match(VERIFIER, /^[A-Za-z0-9._~-]{43,128}$/);
  assert.equal(CHALLENGE, createHash('sha256').update(VERIFIER).digest('base64url'));
}

/** The callback step kept the code only because state and iss matched (RFC 9207). */
function assertCode(run: ShellRun): void {
  assert.ok(run.vars.CODE, run.stdout);
  assert.equal(run.stdout, `code=${run.vars.CODE} error=\n`);
}

/** A token answer: the variables the block set are the tokens the server issued. */
function assertTokens(run: ShellRun, answer: Record<string, unknown>): void {
  assert.equal(answer.token_type, 'Bearer');
  assert.equal(run.vars.ACCESS_TOKEN, answer.access_token);
  assert.equal(run.vars.REFRESH_TOKEN, answer.refresh_token);
}

/**
 * The `WWW-Authenticate` of a `curl -i` answer, asserted to be the challenge the prose shows
 * ("…" standing for any value) and to point at this server's resource metadata (RFC 9728 §5.1).
 */
function challengeOf(output: string, prose: string): { challenge: string; body: string } {
  const [head, body] = output.split('\r\n\r\n');
  const challenge = /^www-authenticate: (.*)\r$/im.exec(`${head}\r`)?.[1] ?? '';
  const shown = /`WWW-Authenticate: (Bearer [^`]+)`/.exec(prose)?.[1];
  assert.ok(shown, `the prose shows no challenge: ${prose}`);
  const pattern = shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('…', '[^"]+');
  assert.match(challenge, new RegExp(`^${pattern}$`));
  assert.match(
    challenge,
    /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource(\/mcp|\/account\/graphql)?"/,
  );
  return { challenge, body };
}

const STEPS: Step[] = [
  {
    section: '## 1. Discover',
    shows: /oauth-authorization-server\n.*oauth-protected-resource\n$/,
    async check(block, w) {
      const run = await sh(block, w, [200, 200]);
      const [as, rs] = run.curls.map((c) => json(c.body));
      assert.equal(as.issuer, w.base);
      assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
      for (const key of backticked(block.after).filter((k) => k.endsWith('_endpoint'))) {
        assert.ok(as[key], key);
      }
      assert.equal(rs.resource, w.base);
      assert.equal(rs.scopes_supported, undefined, 'no scopes_supported, on purpose');
    },
  },
  {
    section: '### 2.1 Vendor platforms',
    shows: /"client_name": "[^"]+", "redirect_uris": \["https:/,
    async check(block, w) {
      const run = await sh(block, w, [201]);
      const promised = /The answer is `201` with `"client_id": "([^"]+)"`/.exec(block.after);
      assert.ok(promised, 'the prose says which client_id comes back');
      assert.equal(json(run.curls[0].body).client_id, promised[1]);
    },
  },
  {
    section: '### 2.3 Fixed HTTPS callback',
    shows: /https:\/\/app\.example\.com\/callback/,
    async check(block, w) {
      // An intentionally failing example: refused exactly as the ```json after it says.
      const run = await sh(block, w, [400]);
      assert.equal(block.next?.lang, 'json');
      assert.deepEqual(json(run.curls[0].body), JSON.parse(block.next.code));
    },
  },
  {
    section: '## 4. Operator walkthrough',
    shows: /^field\(\) [\s\S]*^param\(\) /m,
    async check(block, w) {
      const run = await sh(block, w, []);
      assert.equal(run.stdout, '');
    },
  },
  {
    section: '### 4.1 Register a loopback client',
    shows: /REGISTRATION=\$\(curl -s -X POST .*\/api\/oauth\/register/,
    async check(block, w) {
      const run = await sh(block, w, [201]);
      const registered = json(run.curls[0].body);
      assert.equal(registered.token_endpoint_auth_method, 'none');
      assert.match(run.vars.CLIENT_ID, /^lc_/);
      assert.equal(run.vars.CLIENT_ID, registered.client_id);
    },
  },
  {
    section: '### 4.2 Authorize',
    shows: /VERIFIER=[\s\S]*echo ".*\/oauth\/authorize\?/,
    async check(block, w) {
      const run = await sh(block, w, []);
      assertPkce(run);
      const url = new URL(w.authorizeUrl ?? '');
      assert.equal(url.searchParams.get('client_id'), run.vars.CLIENT_ID);
      assert.equal(url.searchParams.get('scope'), 'openid courses:read');
      assert.equal(url.searchParams.get('state'), run.vars.STATE);
    },
  },
  {
    section: '### 4.2 Authorize',
    shows: /CALLBACK='<CALLBACK_URL>'/,
    async check(block, w) {
      assertCode(await sh(block, w, []));
    },
  },
  {
    section: '### 4.3 Exchange the code',
    shows: /grant_type=authorization_code/,
    async check(block, w) {
      const run = await sh(block, w, [200]);
      const answer = json(run.curls[0].body);
      assertTokens(run, answer);
      // The answer the document shows: the same fields, the same fixed values.
      assert.equal(block.next?.lang, 'json');
      const shown = JSON.parse(block.next.code) as Record<string, unknown>;
      assert.deepEqual(Object.keys(answer).sort(), Object.keys(shown).sort());
      for (const key of ['token_type', 'expires_in', 'scope']) assert.equal(answer[key], shown[key], key);
    },
  },
  {
    section: '### 4.4 Call the admin API',
    shows: /\/api\/v1\/courses\?limit=10/,
    async check(block, w) {
      const run = await sh(block, w, [200]);
      const list = json(run.curls[0].body) as { data: Array<{ slug: string }>; next_cursor: unknown };
      assert.ok(list.data.some((c) => c.slug === 'getting-started-with-typescript'));
      assert.ok('next_cursor' in list);
    },
  },
  {
    section: '### 4.4 Call the admin API',
    shows: /\/api\/oauth\/introspect/,
    async check(block, w) {
      const run = await sh(block, w, [200]);
      const token = json(run.curls[0].body);
      assert.equal(token.active, true);
      assert.equal(token.aud, w.base);
      assert.equal(token.client_id, run.vars.CLIENT_ID);
    },
  },
  {
    section: '### 4.5 Refresh',
    shows: /grant_type=refresh_token/,
    async check(block, w) {
      const before = (await w.shell.run('true')).vars;
      const run = await sh(block, w, [200]);
      const answer = json(run.curls[0].body);
      assertTokens(run, answer);
      assert.notEqual(run.vars.REFRESH_TOKEN, before.REFRESH_TOKEN, 'a new refresh token');
      assert.equal(answer.id_token, undefined, 'no id_token on refresh');
    },
  },
  {
    section: '### 4.6 Revoke',
    shows: /\/api\/oauth\/revoke[\s\S]*token="\$REFRESH_TOKEN"/,
    async check(block, w) {
      const run = await sh(block, w, [200]);
      assert.equal(run.curls[0].body, '', 'RFC 7009 §2.2: an empty 200');
    },
  },
  {
    section: '### 4.6 Revoke',
    shows: /\/api\/v1\/courses/,
    async check(block, w) {
      const run = await sh(block, w, [401]);
      assert.equal(json(run.curls[0].body).code, 'invalid_token');
      assert.match(block.before, /answers `401` with `invalid_token`/);
    },
  },
  {
    section: "### 5.1 The member app's client_id",
    shows: /^CLIENT_ID=demo-member-app /m,
    async check(block, w) {
      const run = await sh(block, w, []);
      assert.equal(run.vars.CLIENT_ID, DEMO_MEMBER_APP_ID);
    },
  },
  {
    section: '### 5.2 Authorize',
    shows: /VERIFIER=[\s\S]*echo ".*\/oauth\/authorize\?/,
    async check(block, w) {
      const run = await sh(block, w, []);
      assertPkce(run);
      const url = new URL(w.authorizeUrl ?? '');
      assert.equal(url.searchParams.get('resource'), w.base);
      assert.equal(url.searchParams.get('scope'), 'openid profile email account:read');
      assert.equal(url.searchParams.get('nonce'), run.vars.NONCE);
    },
  },
  {
    section: '### 5.2 Authorize',
    shows: /CALLBACK='<CALLBACK_URL>'/,
    async check(block, w) {
      assertCode(await sh(block, w, []));
    },
  },
  {
    section: '### 5.3 Exchange the code',
    shows: /grant_type=authorization_code[\s\S]*--data-urlencode resource=/,
    async check(block, w) {
      const run = await sh(block, w, [200]);
      const answer = json(run.curls[0].body);
      assertTokens(run, answer);
      const promised = /`"scope": "([^"]+)"`/.exec(block.after);
      assert.equal(answer.scope, promised?.[1]);
      assert.equal(run.vars.ID_TOKEN, answer.id_token);
    },
  },
  {
    section: '### 5.4 Verify the id_token',
    shows: /jwtVerify\(idToken, jwks/,
    async check(block, w) {
      const { vars } = await w.shell.run('true');
      const scope = { idToken: vars.ID_TOKEN, clientId: vars.CLIENT_ID, nonce: vars.NONCE };
      const logs = await runJsBlock(block.code, scope);
      const claims = decodeJwt(vars.ID_TOKEN);
      assert.deepEqual(logs, [`${claims.sub} student@example.com ${claims.org_id} student`]);
      // It verifies: another nonce, or another audience, is refused.
      await assert.rejects(runJsBlock(block.code, { ...scope, nonce: 'other' }), /nonce mismatch/);
      await assert.rejects(runJsBlock(block.code, { ...scope, clientId: 'other' }), /"aud" claim/);
    },
  },
  {
    section: '### 5.5 Call the Account API and UserInfo',
    shows: /\/account\/graphql[\s\S]*enrolledCourses\(first: 10\)/,
    async check(block, w) {
      const run = await sh(block, w, [200]);
      const { data } = json(run.curls[0].body) as {
        data: { viewer: { email: string; enrolledCourses: { nodes: Array<Record<string, unknown>> } } };
      };
      assert.equal(data.viewer.email, 'student@example.com');
      const typescript = data.viewer.enrolledCourses.nodes.find(
        (n) => n.slug === 'getting-started-with-typescript',
      );
      assert.equal(typescript?.hasLifetimeAccess, true);
      assert.ok(typescript?.lastWatchedLecture);
    },
  },
  {
    section: '### 5.5 Call the Account API and UserInfo',
    shows: /\/api\/oauth\/userinfo/,
    async check(block, w) {
      const run = await sh(block, w, [200]);
      const info = json(run.curls[0].body);
      const claims = decodeJwt(run.vars.ID_TOKEN);
      // Spec §2.4: the same values as the id_token.
      for (const key of ['sub', 'email', 'name', 'org_id', 'roles']) {
        assert.deepEqual(info[key], claims[key], key);
      }
      assert.deepEqual(info.roles, ['student']);
    },
  },
  {
    section: '### 5.6 Refresh',
    shows: /grant_type=refresh_token/,
    async check(block, w) {
      const run = await sh(block, w, [200]);
      assertTokens(run, json(run.curls[0].body));
    },
  },
  {
    section: '### 5.7 Revoke',
    shows: /\/api\/oauth\/revoke[\s\S]*\/account\/graphql/,
    async check(block, w) {
      const run = await sh(block, w, [200, 401]);
      assert.equal(run.curls[0].body, '');
      const refused = json(run.curls[1].body) as { errors: Array<{ extensions: { code: string } }> };
      assert.equal(refused.errors[0].extensions.code, 'invalid_token');
    },
  },
  {
    section: '### 6.1 Anonymous',
    shows: /"method": "initialize"[\s\S]*"method": "tools\/list"/,
    async check(block, w) {
      const run = await sh(block, w, [200, 200]);
      const init = jsonRpcBody(run.curls[0].body).result as Record<string, unknown>;
      assert.equal(init.protocolVersion, '2025-06-18');
      const { tools } = jsonRpcBody(run.curls[1].body).result as { tools: Array<{ name: string }> };
      const names = tools.map((t) => t.name);
      const promised = backticked(block.after.trim().split('\n\n')[0]);
      assert.ok(promised.length >= 4, block.after);
      for (const name of promised) assert.ok(names.includes(name), `${name} in ${names.join(' ')}`);
      for (const name of ['my_courses', 'courses_list']) assert.ok(!names.includes(name), name);
    },
  },
  {
    section: '### 6.1 Anonymous',
    shows: /curl -si [\s\S]*"name": "my_courses"/,
    async check(block, w) {
      const run = await sh(block, w, [401]);
      const { challenge, body } = challengeOf(run.curls[0].body, block.before);
      assert.match(challenge, /scope="openid account:read"$/);
      assert.equal((jsonRpcBody(body).error as { data: { error: string } }).data.error, 'invalid_token');
    },
  },
  {
    section: '### 6.2 With a token',
    shows: /VERIFIER=[\s\S]*echo ".*\/oauth\/authorize\?/,
    async check(block, w) {
      const run = await sh(block, w, []);
      assertPkce(run);
      const url = new URL(w.authorizeUrl ?? '');
      assert.equal(url.searchParams.get('scope'), null, 'no scope: the default');
      assert.equal(url.searchParams.get('client_id'), DEMO_MEMBER_APP_ID);
    },
  },
  {
    section: '### 6.2 With a token',
    shows: /CALLBACK='<CALLBACK_URL>'[\s\S]*grant_type=authorization_code/,
    async check(block, w) {
      const run = await sh(block, w, [200]);
      assert.match(run.stdout, new RegExp(`^code=${run.vars.CODE} error=\n`));
      const answer = json(run.curls[0].body);
      assertTokens(run, answer);
      const promised = /scope` is the member default, `([^`]+)`/.exec(block.after);
      assert.equal(answer.scope, promised?.[1]);
    },
  },
  {
    section: '### 6.2 With a token',
    shows: /Authorization: Bearer \$ACCESS_TOKEN[\s\S]*"method": "tools\/list"/,
    async check(block, w) {
      const run = await sh(block, w, [200]);
      const { tools } = jsonRpcBody(run.curls[0].body).result as { tools: Array<{ name: string }> };
      const names = tools.map((t) => t.name);
      const promised = backticked(block.before).filter((n) => n.startsWith('my_'));
      assert.equal(promised.length, 4, block.before);
      for (const name of promised) assert.ok(names.includes(name), name);
      assert.ok(!names.includes('record_progress'), 'write tools need account:write');
    },
  },
  {
    section: '### 6.2 With a token',
    shows: /curl -si [\s\S]*"name": "record_progress"/,
    async check(block, w) {
      const run = await sh(block, w, [403]);
      const { body } = challengeOf(run.curls[0].body, block.before);
      const error = jsonRpcBody(body).error as { data: { error: string } };
      assert.equal(error.data.error, 'insufficient_scope');
    },
  },
  {
    section: '### 6.3 From an MCP SDK',
    shows: /import \{ auth, Client, StreamableHTTPClientTransport \} from '@modelcontextprotocol\/client'/,
    async check(block, w) {
      // Once as a member agent (the school's member app), once as an operator agent (the SDK
      // registers a loopback client): one consent each, the default scopes, that audience's tools.
      for (const [user, clientId, tool] of [
        ['student@example.com', DEMO_MEMBER_APP_ID, 'my_courses'],
        ['owner@example.com', undefined, 'courses_list'],
      ] as const) {
        const provider = new BrowserPlayingProvider(new Browser(w.live.t), user, { clientId });
        const logs = await runJsBlock(block.code, {
          provider,
          redirectReceived: async () => provider.takeCallback(),
        });
        assert.equal(provider.consentPages.length, 1, user);
        assert.equal(provider.authorizationUrls[0].searchParams.get('scope'), null);
        assert.equal(logs.length, 1);
        assert.ok(logs[0].split(' ').includes(tool), `${tool} in ${logs[0]}`);
      }
    },
  },
  {
    section: '### 6.3 From an MCP SDK',
    shows: /invalidateCredentials[\s\S]*coupons:write[\s\S]*transport\.finishAuth/,
    async check(block, w) {
      // The v1 client signed in with the default, then meets a write tool (typescript-sdk #2255).
      const provider = new BrowserPlayingProvider(new Browser(w.live.t), 'owner@example.com');
      const serverUrl = `${w.base}/mcp`;
      // biome-ignore lint/suspicious/noExplicitAny: the provider serves both SDK generations' types
      const v1Provider = provider as any;
      assert.equal(await authV1(v1Provider, { serverUrl }), 'REDIRECT');
      const code = provider.takeCallback().get('code') ?? undefined;
      assert.equal(await authV1(v1Provider, { serverUrl, authorizationCode: code }), 'AUTHORIZED');
      assert.equal(provider.saved?.scope, formatScopes(MCP_CHALLENGE_SCOPES));
      const transport = new TransportV1(new URL(serverUrl), { authProvider: v1Provider });
      const client = new ClientV1({ name: 'doc-v1', version: '1.0.0' });
      await client.connect(transport as never);
      const create = () =>
        client.callTool({
          name: 'coupons_create',
          arguments: { code: 'DOCV1', kind: 'percent', percent_off: 5 },
        });
      await assert.rejects(create(), /403 after trying upscoping/);
      await runJsBlock(block.code, {
        provider,
        auth: authV1,
        serverUrl,
        transport,
        redirectReceived: async () => provider.takeCallback(),
      });
      assert.equal(provider.consentPages.length, 2, 'one more consent');
      assert.ok(provider.saved?.scope?.split(' ').includes('coupons:write'));
      const created = await create();
      assert.equal(created.isError, undefined, JSON.stringify(created));
      await client.close();
    },
  },
];

describe('/auth.md is executable: its walkthroughs run as written against a live server', () => {
  let w: World;
  let blocks: DocBlock[];
  let failed = false;
  before(async () => {
    const live = await startLiveApp();
    await createWorld(live.t);
    const res = await fetch(`${live.baseUrl}/auth.md`);
    assert.equal(res.status, 200);
    blocks = docBlocks(await res.text()).filter((b) => b.lang === 'sh' || b.lang === 'js');
    w = { live, base: live.baseUrl, shell: new ShellSession(ShellSession.assignedNames(blocks)) };
  });
  after(async () => {
    w.shell.close();
    await w.live.close();
  });

  it('every sh and js block has a step here, and <CALLBACK_URL> is the only placeholder', () => {
    assert.deepEqual(
      blocks.map((b) => b.heading),
      STEPS.map((s) => s.section),
    );
    for (const block of blocks) {
      for (const m of block.code.matchAll(/<[A-Z][A-Z_]*>/g))
        assert.equal(m[0], '<CALLBACK_URL>', block.code);
    }
  });

  STEPS.forEach((step, i) => {
    it(`${step.section.replace(/^#+ /, '')}, block ${i + 1}`, async (t) => {
      if (failed) return t.skip('an earlier step failed');
      try {
        const block = blocks[i];
        assert.ok(block, `the document has no block ${i + 1}`);
        assert.equal(block.heading, step.section);
        assert.match(block.code, step.shows);
        await step.check(block, w);
      } catch (err) {
        failed = true;
        throw err;
      }
    });
  });
});
