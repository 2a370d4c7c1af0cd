import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProtocolError } from '@modelcontextprotocol/client';
import { MCP_CHALLENGE_SCOPES } from '../../src/oauth/scopes.ts';
import { issueTestToken } from '../support/tokens.ts';
import { type Seeded, seedSchool, studentMemberToken } from '../support/world-mcp.ts';
import { connectClient, type LiveApp, postMcp, readJsonRpc, startLiveApp } from './harness.ts';

const callMyCourses = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'my_courses', arguments: {} },
};

describe('MCP endpoint: authentication, scope gate, protocol errors, CORS', () => {
  let live: LiveApp;
  let seeded: Seeded;
  let prm: string;
  let memberRead: string;
  before(async () => {
    live = await startLiveApp();
    seeded = await seedSchool(live.t);
    prm = `${live.baseUrl}/.well-known/oauth-protected-resource/mcp`;
    memberRead = await studentMemberToken(live.t, seeded, ['account:read']);
  });
  after(() => live.close());

  function invalidTokenChallenge(description: string): string {
    const quoted = description.replace(/["\\]/g, (ch) => `\\${ch}`);
    return `Bearer resource_metadata="${prm}", error="invalid_token", error_description="${quoted}", scope="${MCP_CHALLENGE_SCOPES.join(' ')}"`;
  }

  async function assert401(res: Response, description: string): Promise<void> {
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), invalidTokenChallenge(description));
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
    assert.deepEqual(await res.json(), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32001, message: description, data: { error: 'invalid_token' } },
    });
  }

  // RFC 6750 §3.1 + spec §4.7: a token that fails is not anonymous.
  it('an unknown token is 401 invalid_token with resource_metadata and the MCP challenge scopes', async () => {
    await assert401(
      await postMcp(
        live,
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { Authorization: 'Bearer not-a-real-token' },
      ),
      'The access token is not valid.',
    );
  });

  it('an expired, a revoked and an other-resource token are each 401, even for tools/list', async () => {
    const base = {
      userId: seeded.studentId,
      schoolId: seeded.schoolId,
      audience: 'member' as const,
      scopes: ['account:read'],
    };
    const expired = await issueTestToken(live.t, { ...base, expiresInSeconds: -5 });
    const revoked = await issueTestToken(live.t, base);
    await live.t.runtime.db
      .updateTable('oauth_grants')
      .set({ revoked_at: new Date().toISOString() })
      .where('id', '=', revoked.grantId)
      .execute();
    // RFC 8707 §2 / spec §5.5: a token bound to another origin is invalid here.
    const foreign = await issueTestToken(live.t, { ...base, resource: 'https://elsewhere.example' });
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    await assert401(
      await postMcp(live, list, { Authorization: `Bearer ${expired.token}` }),
      'The access token has expired.',
    );
    await assert401(
      await postMcp(live, list, { Authorization: `Bearer ${revoked.token}` }),
      'The access token has been revoked.',
    );
    await assert401(
      await postMcp(live, list, { Authorization: `Bearer ${foreign.token}` }),
      'The access token was issued for a different resource.',
    );
  });

  it('a non-Bearer Authorization header is 401, not anonymous (RFC 6750 §2.1)', async () => {
    await assert401(
      await postMcp(
        live,
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { Authorization: 'Basic dXNlcjpwYXNz' },
      ),
      'The Authorization header must use the Bearer scheme: Bearer <access token>.',
    );
  });

  it('the client SDK surfaces the 401 of an invalid token instead of falling back to anonymous', async () => {
    await assert.rejects(connectClient(live, { token: 'bogus-token' }), (err: unknown) => {
      assert.match(String(err), /The access token is not valid\./);
      assert.equal((err as { data?: { status?: number } }).data?.status, 401);
      return true;
    });
  });

  it('an anonymous call of a member tool is 401 asking for openid account:read (RFC 6750 §3: no error code)', async () => {
    const res = await postMcp(live, callMyCourses);
    assert.equal(res.status, 401);
    assert.equal(
      res.headers.get('www-authenticate'),
      `Bearer resource_metadata="${prm}", scope="openid account:read"`,
    );
    const body = await res.json();
    assert.equal(body.id, 7);
    assert.equal(body.error.code, -32001);
    assert.equal(
      body.error.message,
      'The tool my_courses needs an access token with the account:read scope.',
    );
  });

  it('how_to_authenticate with sign_in=true is a 401 on purpose: no scope (each client its default) or the operator scopes', async () => {
    const call = (args: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'how_to_authenticate', arguments: args },
    });
    // No scope named: a registered client asks for none and gets the operator default, a member
    // app the member default (RFC 6749 §3.3); neither is sent to a scope it is refused.
    const any = await postMcp(live, call({ sign_in: true }));
    assert.equal(any.status, 401);
    assert.equal(any.headers.get('www-authenticate'), `Bearer resource_metadata="${prm}"`);
    assert.equal((await any.json()).error.message, 'Sign in to use more tools.');
    const operator = await postMcp(live, call({ sign_in: true, as: 'operator' }));
    assert.equal(operator.status, 401);
    assert.equal(
      operator.headers.get('www-authenticate'),
      `Bearer resource_metadata="${prm}", scope="${MCP_CHALLENGE_SCOPES.join(' ')}"`,
    );
    // as=member starts no sign-in (test/mcp/auth-next-step.test.ts): it answers in words.
    const member = await postMcp(live, call({ sign_in: true, as: 'member' }));
    assert.equal(member.status, 200);
    assert.equal(member.headers.get('www-authenticate'), null);
    // Without sign_in, or with a token, it simply answers.
    assert.equal((await postMcp(live, call({}))).status, 200);
    const signedIn = await readJsonRpc(
      await postMcp(live, call({ sign_in: true }), { Authorization: `Bearer ${memberRead}` }),
    );
    const out = (signedIn.result as { structuredContent: { signedIn: unknown } }).structuredContent;
    assert.deepEqual(out.signedIn, {
      audience: 'member',
      user: { name: 'Sam Student', email: 'student@acme.test' },
      roles: ['student'],
      school: { name: 'Acme Academy', subdomain: 'acme' },
      client: { id: 'test-client-member', kind: 'member' },
      scopes: 'account:read',
    });
  });

  // RFC 6750 §3.1 insufficient_scope; MCP authorization "Scope challenge handling".
  it('a call beyond the token is 403 insufficient_scope naming the scope, with the request id', async () => {
    const res = await postMcp(
      live,
      {
        jsonrpc: '2.0',
        id: 'call-9',
        method: 'tools/call',
        params: { name: 'register_for_event', arguments: { eventId: 'x' } },
      },
      { Authorization: `Bearer ${memberRead}` },
    );
    assert.equal(res.status, 403);
    const description = 'The tool register_for_event needs the account:write scope.';
    assert.equal(
      res.headers.get('www-authenticate'),
      `Bearer resource_metadata="${prm}", error="insufficient_scope", error_description="${description}", scope="account:write"`,
    );
    assert.deepEqual(await res.json(), {
      jsonrpc: '2.0',
      id: 'call-9',
      error: {
        code: -32003,
        message: description,
        data: { error: 'insufficient_scope', scope: 'account:write' },
      },
    });
  });

  it('a legacy JSON-RPC batch is gated call by call: one call beyond scope refuses the batch', async () => {
    const allowed = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'my_orders', arguments: {} },
    };
    const beyond = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'record_progress', arguments: {} },
    };
    const refused = await postMcp(live, [allowed, beyond], {
      Authorization: `Bearer ${memberRead}`,
      'MCP-Protocol-Version': '2025-03-26',
    });
    assert.equal(refused.status, 403);
    assert.equal((await refused.json()).id, 2);
    const ok = await postMcp(live, [allowed, { ...allowed, id: 3 }], {
      Authorization: `Bearer ${memberRead}`,
      'MCP-Protocol-Version': '2025-03-26',
    });
    assert.equal(ok.status, 200);
    const text = await ok.text();
    assert.match(text, /"id":1/);
    assert.match(text, /"id":3/);
  });

  it('older revisions are negotiated on initialize; an unknown one gets the newest 2025 revision', async () => {
    for (const [asked, expected] of [
      ['2025-11-25', '2025-11-25'],
      ['2025-06-18', '2025-06-18'],
      ['2025-03-26', '2025-03-26'],
      ['2024-11-05', '2024-11-05'],
      ['1999-01-01', '2025-11-25'],
    ]) {
      const res = await postMcp(
        live,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'old', version: '1' } },
        },
        { 'MCP-Protocol-Version': '' },
      );
      assert.equal(res.status, 200, asked);
      const body = await readJsonRpc(res);
      const result = body.result as {
        protocolVersion: string;
        serverInfo: { name: string };
        instructions: string;
        capabilities: Record<string, unknown>;
      };
      assert.equal(result.protocolVersion, expected, asked);
      // Declared even though initialize registers no tool (each request builds its own server).
      assert.deepEqual(result.capabilities, { tools: { listChanged: false } });
      assert.equal(result.serverInfo.name, 'lectern');
      assert.match(result.instructions, /how_to_authenticate/);
    }
  });

  it('malformed JSON is a JSON-RPC parse error (-32700), HTTP 400', async () => {
    const res = await postMcp(live, '{"jsonrpc": "2.0", "id": 1, "method": ');
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the body is not valid JSON.' },
    });
  });

  it('a body that is JSON but not JSON-RPC is an invalid request, never a 500', async () => {
    const res = await postMcp(live, { hello: 'world' });
    assert.ok(res.status === 400, `status ${res.status}`);
    const body = await readJsonRpc(res);
    assert.equal((body.error as { code: number }).code, -32600);
  });

  it('an unknown method is JSON-RPC -32601 Method not found', async () => {
    const body = await readJsonRpc(
      await postMcp(live, { jsonrpc: '2.0', id: 5, method: 'lectern/teleport' }),
    );
    assert.deepEqual(body.error, { code: -32601, message: 'Method not found' });
    assert.equal(body.id, 5);
  });

  for (const modern of [false, true]) {
    const era = modern ? '2026-07-28' : '2025-11-25';
    it(`an unknown tool is JSON-RPC -32602 (${era})`, async () => {
      const { client } = await connectClient(live, { modern });
      await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (err: unknown) => {
        assert.ok(err instanceof ProtocolError, String(err));
        assert.equal(err.code, -32602);
        assert.match(err.message, /Tool no_such_tool not found/);
        return true;
      });
      await client.close();
    });

    // MCP 2025-11-25 server/tools "Error Handling": input validation errors are tool execution
    // errors, so the model can read them and correct its arguments.
    it(`bad arguments are a tool error naming the field (${era})`, async () => {
      const { client } = await connectClient(live, { modern });
      const res = await client.callTool({
        name: 'search_courses',
        arguments: { school: 'acme', limit: 1000 },
      });
      assert.equal(res.isError, true);
      assert.match((res.content as Array<{ text: string }>)[0].text, /Input validation error: .*limit/);
      const wrongType = await client.callTool({
        name: 'get_course_outline',
        arguments: { school: 'acme', course: 42 },
      });
      assert.equal(wrongType.isError, true);
      assert.match((wrongType.content as Array<{ text: string }>)[0].text, /course/);
      await client.close();
    });
  }

  it('a POST that is not application/json is 415', async () => {
    const res = await fetch(live.mcpUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', Accept: 'application/json, text/event-stream' },
      body: 'hello',
    });
    assert.equal(res.status, 415);
  });

  it('GET and DELETE are 405 with Allow: POST (stateless: no sessions, no server stream)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(live.mcpUrl, { method, headers: { Accept: 'text/event-stream' } });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST', method);
      assert.equal(res.headers.get('access-control-allow-origin'), '*', method);
    }
  });

  it('CORS preflight is answered before authentication, allowing the MCP headers', async () => {
    const res = await fetch(live.mcpUrl, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://inspector.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, mcp-protocol-version',
        Authorization: 'Bearer invalid',
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.equal(res.headers.get('access-control-allow-methods'), 'GET,POST,DELETE,OPTIONS');
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    for (const h of [
      'authorization',
      'content-type',
      'mcp-session-id',
      'mcp-protocol-version',
      'last-event-id',
    ]) {
      assert.ok(allowed.includes(h), h);
    }
    assert.equal(
      res.headers.get('access-control-expose-headers'),
      'WWW-Authenticate,Mcp-Session-Id,Mcp-Protocol-Version',
    );
    assert.equal(res.headers.get('access-control-allow-credentials'), null);
  });

  it('a browser client on another site is served (bearer auth, no cookies), with CORS headers', async () => {
    const res = await postMcp(
      live,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { Origin: 'https://claude.ai' },
    );
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });

  it('Origin "null" or garbage is refused 403 (MCP transport: validate Origin)', async () => {
    for (const origin of ['null', 'not a url', 'file:///etc/passwd']) {
      const res = await postMcp(live, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { Origin: origin });
      assert.equal(res.status, 403, origin);
      assert.equal((await res.json()).error.message, 'The Origin header is not a valid origin.');
    }
  });

  it("the DNS-rebinding signature (Origin host = Host, not BASE_URL's) is refused 403", async () => {
    const res = await live.t.request('/mcp', {
      method: 'POST',
      headers: {
        Host: 'evil.example:8080',
        Origin: 'http://evil.example:8080',
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 403);
    assert.equal(
      (await res.json()).error.message,
      'The request reached this server under a host name that is not its own.',
    );
  });

  // Last: the server closes a connection whose oversized body it did not read.
  it('a body over the configured limit is 413 before anything is parsed', async () => {
    const limit = live.t.config.bodyLimitBytes;
    const res = await postMcp(live, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_courses', arguments: { query: 'x'.repeat(limit) } },
    });
    assert.equal(res.status, 413);
  });
});
