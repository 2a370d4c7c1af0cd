/**
 * The MCP-Protocol-Version request header (spec: basic/transports, "Protocol Version Header"):
 * a revision the server does not speak is 400 with a JSON-RPC error, whatever else the request
 * holds, so a host falls back instead of signing in for nothing; a supported one is served; none
 * is the spec's default. Raw HTTP, as a host sends it after initialize.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { type Seeded, seedSchool, studentMemberToken } from '../support/world-mcp.ts';
import { connectClient, type LiveApp, postMcp, readJsonRpc, startLiveApp } from './harness.ts';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const listTools = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const call = (name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('MCP-Protocol-Version: an unsupported revision is 400, a supported one is served', () => {
  let live: LiveApp;
  let seeded: Seeded;
  let memberRead: string;
  before(async () => {
    live = await startLiveApp();
    seeded = await seedSchool(live.t);
    memberRead = await studentMemberToken(live.t, seeded, ['account:read']);
  });
  after(() => live.close());

  /** Asserts the 400 answer for a 2025-era request naming `version`. */
  async function assertUnsupported(res: Response, version: string, id: number | null): Promise<void> {
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.headers.get('www-authenticate'), null);
    assert.deepEqual(await res.json(), {
      jsonrpc: '2.0',
      id,
      error: {
        code: -32000,
        message: `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
        data: { supported: [...SUPPORTED_PROTOCOL_VERSIONS], requested: version },
      },
    });
  }

  it('after initialize, a request naming 1999-01-01 is 400 with a JSON-RPC error; 2025-06-18 is 200', async () => {
    const init = await postMcp(live, initialize, { 'MCP-Protocol-Version': '' });
    assert.equal(init.status, 200);
    const negotiated = ((await readJsonRpc(init)).result as { protocolVersion: string }).protocolVersion;
    assert.equal(negotiated, '2025-06-18');

    await assertUnsupported(
      await postMcp(live, listTools, { 'MCP-Protocol-Version': '1999-01-01' }),
      '1999-01-01',
      2,
    );
    const served = await postMcp(live, listTools, { 'MCP-Protocol-Version': negotiated });
    assert.equal(served.status, 200);
    const tools = ((await readJsonRpc(served)).result as { tools: Array<{ name: string }> }).tools;
    assert.ok(tools.some((t) => t.name === 'search_courses'));
  });

  it('every revision the SDK negotiates is served; no header is the default revision', async () => {
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
      const res = await postMcp(live, listTools, { 'MCP-Protocol-Version': version });
      assert.equal(res.status, 200, version);
    }
    // No header at all (postMcp always sends one): the SDK assumes the spec's default.
    const none = await fetch(live.mcpUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(listTools),
    });
    assert.equal(none.status, 200);
    assert.ok(Array.isArray(((await readJsonRpc(none)).result as { tools: unknown[] }).tools));
  });

  it('the version is refused before the token and the scope gate: no 401 or 403 challenge to sign in for', async () => {
    const bad = { 'MCP-Protocol-Version': '1999-01-01' };
    // Anonymous call of a member tool (else a 401 challenge), how_to_authenticate sign_in=true
    // (else 401 on purpose), a call beyond the token (else 403), a token that fails (else 401).
    await assertUnsupported(await postMcp(live, call('my_courses'), bad), '1999-01-01', 3);
    await assertUnsupported(
      await postMcp(live, call('how_to_authenticate', { sign_in: true }), bad),
      '1999-01-01',
      3,
    );
    await assertUnsupported(
      await postMcp(live, call('record_progress', { lectureId: 'x', positionSeconds: 1 }), {
        ...bad,
        Authorization: `Bearer ${memberRead}`,
      }),
      '1999-01-01',
      3,
    );
    await assertUnsupported(
      await postMcp(live, listTools, { ...bad, Authorization: 'Bearer not-a-real-token' }),
      '1999-01-01',
      2,
    );
    // A notification and a batch have no id to answer with.
    await assertUnsupported(
      await postMcp(live, { jsonrpc: '2.0', method: 'notifications/initialized' }, bad),
      '1999-01-01',
      null,
    );
    await assertUnsupported(
      await postMcp(live, [listTools, { ...listTools, id: 4 }], bad),
      '1999-01-01',
      null,
    );
    await assertUnsupported(
      await postMcp(live, listTools, { 'MCP-Protocol-Version': '2025-13-45' }),
      '2025-13-45',
      2,
    );
  });

  it('initialize negotiates in its body: an unknown header there is answered with the newest revision', async () => {
    const res = await postMcp(
      live,
      { ...initialize, params: { ...initialize.params, protocolVersion: '1999-01-01' } },
      { 'MCP-Protocol-Version': '1999-01-01' },
    );
    assert.equal(res.status, 200);
    assert.equal(
      ((await readJsonRpc(res)).result as { protocolVersion: string }).protocolVersion,
      '2025-11-25',
    );
  });

  it('a 2026-07-28 request naming an unknown revision gets that era’s error; 2026-07-28 itself is served', async () => {
    const envelope = (version: string) => ({
      'io.modelcontextprotocol/protocolVersion': version,
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    });
    const modern = (version: string) =>
      postMcp(
        live,
        {
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: { name: 'my_courses', arguments: {}, _meta: envelope(version) },
        },
        { 'MCP-Protocol-Version': version, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'my_courses' },
      );
    const refused = await modern('2027-01-01');
    assert.equal(refused.status, 400);
    assert.deepEqual(await refused.json(), {
      jsonrpc: '2.0',
      id: 9,
      error: {
        code: -32022,
        message: 'Unsupported protocol version: 2027-01-01',
        data: { supported: ['2026-07-28'], requested: '2027-01-01' },
      },
    });
    // The same call in a served revision reaches the scope gate: anonymous, so 401.
    assert.equal((await modern('2026-07-28')).status, 401);
    const { client } = await connectClient(live, { modern: true, token: memberRead });
    const result = await client.callTool({ name: 'my_courses', arguments: {} });
    assert.equal(result.isError, undefined, JSON.stringify(result));
    await client.close();
  });
});
