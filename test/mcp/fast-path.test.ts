import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Hono } from 'hono';
import { createApp } from '../../src/app.ts';
import type { AppEnv } from '../../src/http/context.ts';
import { mcpTools } from '../../src/mcp/all-tools.ts';
import { createToolCatalogue } from '../../src/mcp/catalogue.ts';
import { createFastPath, type FastPath } from '../../src/mcp/fast-path.ts';
import type { AnyMcpTool } from '../../src/mcp/tool.ts';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { createTestClock } from '../support/clock.ts';
import { issueTestToken } from '../support/tokens.ts';
import { ownerOperatorToken, type Seeded, seedSchool } from '../support/world-mcp.ts';

/**
 * Golden tests of the MCP fast path (src/mcp/fast-path.ts): every request is sent to the app as
 * built (fast path on) and to the same app on the same database with the fast path off (every
 * request through the SDK's handler), and the two answers must carry the same status and the same
 * JSON-RPC payload, to the byte (the SDK's SSE frame is unwrapped). Reads run on the shared world,
 * so both calls see the same data; writes are compared on their error answers only (arguments
 * refused by the schema, a domain refusal that changes nothing), since a write that succeeds
 * changes what the second call sees. Each case also says which path must have answered it.
 */

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
type Era = typeof LEGACY | typeof MODERN;

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'golden', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Answer {
  status: number;
  contentType: string;
  /** The JSON-RPC message as sent: the JSON body, or the data of the SSE `message` events. */
  text: string;
}

async function answerOf(res: Response): Promise<Answer> {
  const body = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/event-stream')) return { status: res.status, contentType, text: body };
  const data = body
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice(6));
  return { status: res.status, contentType, text: data.join('\n') };
}

/** One JSON-RPC request as a client of this era sends it (headers, envelope). */
function request(
  era: Era,
  method: string,
  params: Record<string, unknown> | undefined,
  token: string | undefined,
  extraHeaders: Record<string, string> = {},
): { headers: Record<string, string>; body: unknown } {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': era,
  };
  if (token) headers.authorization = `Bearer ${token}`;
  let sent = params;
  if (era === MODERN) {
    headers['mcp-method'] = method;
    if (typeof params?.name === 'string') headers['mcp-name'] = params.name;
    sent = { ...params, _meta: ENVELOPE };
  }
  return {
    headers: { ...headers, ...extraHeaders },
    body: { jsonrpc: '2.0', id: 42, method, ...(sent === undefined ? {} : { params: sent }) },
  };
}

describe('MCP fast path: the same answers as the SDK', () => {
  let t: TestApp;
  let sdkApp: Hono<AppEnv>;
  let fast: FastPath;
  let seeded: Seeded;
  const tokens: Record<'member' | 'writer' | 'operator', string> = { member: '', writer: '', operator: '' };
  const tools = mcpTools();
  let pinned: number | undefined;

  before(async () => {
    // Both answers of a pair are computed at one instant (reads such as analytics name "now").
    const running = createTestClock();
    t = await createTestApp({}, { clock: { ...running, now: () => pinned ?? running.now() } });
    seeded = await seedSchool(t);
    sdkApp = createApp(t.runtime, { mcp: { fastPath: false } });
    fast = createFastPath(t.runtime, createToolCatalogue(tools));
    const member = { userId: seeded.studentId, schoolId: seeded.schoolId, audience: 'member' as const };
    tokens.member = (await issueTestToken(t, { ...member, scopes: ['openid', 'account:read'] })).token;
    tokens.writer = (
      await issueTestToken(t, { ...member, scopes: ['openid', 'account:read', 'account:write'] })
    ).token;
    tokens.operator = await ownerOperatorToken(t, seeded, OPERATOR_SCOPES);
  });
  after(() => t.close());

  async function send(app: Hono<AppEnv>, headers: Record<string, string>, body: unknown): Promise<Answer> {
    const init = { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) };
    return answerOf(await app.request(new URL('/mcp', t.config.baseUrl).toString(), init));
  }

  /** Whether the fast path answers this request by itself (a second run: reads and refusals only). */
  async function fastAnswers(
    headers: Record<string, string>,
    body: unknown,
    token?: string,
  ): Promise<boolean> {
    const verified = await t.runtime.verifier.verify(token ? `Bearer ${token}` : undefined);
    const principal = verified.ok ? verified.principal : null;
    const req = new Request(new URL('/mcp', t.config.baseUrl), {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    return (await fast.answer(req, body, principal)) !== undefined;
  }

  /**
   * Sends one request both ways and compares; `path` is who must answer it with the fast path on:
   * 'fast' (the fast path), 'sdk' (handed to the SDK), 'gate' (refused before either).
   */
  async function golden(
    era: Era,
    body: unknown,
    headers: Record<string, string>,
    path: 'fast' | 'sdk' | 'gate',
    token?: string,
  ): Promise<Answer> {
    pinned = Date.now();
    const viaFast = await send(t.app, headers, body);
    const viaSdk = await send(sdkApp, headers, body);
    pinned = undefined;
    assert.equal(viaFast.status, viaSdk.status, `status of ${JSON.stringify(body)}`);
    assert.equal(viaFast.text, viaSdk.text, `payload of ${JSON.stringify(body)}`);
    if (viaSdk.text && !viaSdk.text.includes('\n'))
      assert.deepEqual(JSON.parse(viaFast.text), JSON.parse(viaSdk.text));
    if (path === 'fast') {
      assert.equal(viaFast.contentType, 'application/json');
      if (era === LEGACY) assert.match(viaSdk.contentType, /^text\/event-stream/);
      else assert.equal(await fastAnswers(headers, body, token), true, 'the fast path answers it');
    } else {
      assert.equal(viaFast.contentType, viaSdk.contentType);
      if (path === 'sdk' && typeof body === 'object') {
        assert.equal(await fastAnswers(headers, body, token), false, 'the fast path hands it on');
      }
    }
    return viaFast;
  }

  async function call(
    era: Era,
    who: keyof typeof tokens | 'anonymous',
    name: string,
    args: unknown,
    path: 'fast' | 'sdk' = 'fast',
  ) {
    const token = who === 'anonymous' ? undefined : tokens[who];
    const { headers, body } = request(era, 'tools/call', { name, arguments: args }, token);
    return golden(era, body, headers, path, token);
  }

  const readOnly = (tool: AnyMcpTool) => tool.annotations.readOnlyHint;
  const byAudience = (audience: AnyMcpTool['audience']) => tools.filter((tool) => tool.audience === audience);

  for (const era of [LEGACY, MODERN] as const) {
    describe(`protocol ${era}`, () => {
      for (const who of ['anonymous', 'member', 'writer', 'operator'] as const) {
        it(`tools/list for ${who} is the SDK's list, entry for entry`, async () => {
          const token = who === 'anonymous' ? undefined : tokens[who];
          const { headers, body } = request(era, 'tools/list', undefined, token);
          const answer = await golden(era, body, headers, 'fast', token);
          assert.ok((JSON.parse(answer.text).result.tools as unknown[]).length >= 5);
        });
      }

      it('every public tool: anonymous and with a token, with and without arguments', async () => {
        for (const tool of byAudience('public')) {
          for (const args of [
            {},
            { school: 'acme' },
            { school: 'acme', query: 'TypeScript' },
            { School: 'acme' },
          ]) {
            await call(era, 'anonymous', tool.name, args);
            await call(era, 'member', tool.name, args);
          }
        }
        await call(era, 'anonymous', 'get_course_outline', { school: 'acme', course: 'intro-to-typescript' });
        await call(era, 'member', 'get_course_outline', { course: 'intro-to-typescript' });
        await call(era, 'member', 'get_course_outline', { course: 'no-such-course' });
      });

      it('every member read tool, on the same data', async () => {
        for (const tool of byAudience('member').filter(readOnly)) {
          for (const args of [
            {},
            { limit: 1 },
            { limit: 0 },
            { courseId: seeded.publishedCourseId },
            { bogus: 1 },
          ]) {
            await call(era, 'member', tool.name, args);
          }
        }
        await call(era, 'member', 'my_course_progress', { course: 'intro-to-typescript' });
        await call(era, 'member', 'my_course_progress', { course: 'no-such-course' });
      });

      it('every member write tool: refused arguments and a domain refusal, which change nothing', async () => {
        for (const tool of byAudience('member').filter((tool) => !readOnly(tool))) {
          for (const args of [{}, { bogus: 1 }, { eventId: 42 }, { lectureId: 'x'.repeat(500) }]) {
            await call(era, 'writer', tool.name, args);
          }
        }
        await call(era, 'writer', 'register_for_event', { eventId: 'no-such-event' });
        await call(era, 'writer', 'cancel_event_registration', { eventId: 'no-such-event' });
      });

      it('every operator tool: reads with no arguments, writes with refused arguments', async () => {
        for (const tool of byAudience('operator')) {
          if (readOnly(tool)) await call(era, 'operator', tool.name, {});
          await call(era, 'operator', tool.name, { bogus: true });
          await call(era, 'operator', tool.name, [], 'sdk'); // not an object: the SDK's refusal
        }
      });

      it('an unknown tool is the SDK error, and arguments of the wrong type the SDK refusal', async () => {
        await call(era, 'member', 'no_such_tool', {});
        await call(era, 'anonymous', 'no_such_tool', {});
        const { headers, body } = request(
          era,
          'tools/call',
          { name: 'my_courses', arguments: 'x' },
          tokens.member,
        );
        await golden(era, body, headers, 'sdk', tokens.member);
        const nameless = request(era, 'tools/call', { arguments: {} }, tokens.member);
        await golden(era, nameless.body, nameless.headers, 'sdk', tokens.member);
      });

      it('a tool beyond the token is the gate’s 401 or 403, before either path', async () => {
        for (const [who, name] of [
          ['anonymous', 'my_courses'],
          ['member', 'record_progress'],
          ['member', byAudience('operator')[0].name],
          ['operator', 'my_courses'],
        ] as const) {
          const token = who === 'anonymous' ? undefined : tokens[who];
          const { headers, body } = request(era, 'tools/call', { name, arguments: {} }, token);
          const answer = await golden(era, body, headers, 'gate', token);
          assert.ok(answer.status === 401 || answer.status === 403, `${who} ${name}: ${answer.status}`);
        }
      });

      it('ping: answered by the fast path on 2025 revisions; 2026-07-28 has none and the SDK says so', async () => {
        const { headers, body } = request(era, 'ping', undefined, tokens.member);
        await golden(era, body, headers, era === LEGACY ? 'fast' : 'sdk', tokens.member);
      });

      it('a notification, a batch, a response, initialize and other methods go to the SDK', async () => {
        const token = tokens.member;
        const note = request(era, 'notifications/initialized', undefined, token);
        const noteBody = { jsonrpc: '2.0', method: 'notifications/initialized' };
        await golden(era, era === LEGACY ? noteBody : note.body, note.headers, 'sdk', token);
        const list = request(era, 'tools/list', undefined, token);
        await golden(era, [list.body, { ...(list.body as object), id: 43 }], list.headers, 'sdk', token);
        await golden(era, { jsonrpc: '2.0', id: 5, result: {} }, list.headers, 'sdk', token);
        for (const method of ['resources/list', 'prompts/list', 'server/discover', 'completion/complete']) {
          const other = request(era, method, undefined, token);
          await golden(era, other.body, other.headers, 'sdk', token);
        }
        const init = request(
          LEGACY,
          'initialize',
          {
            protocolVersion: LEGACY,
            capabilities: {},
            clientInfo: { name: 'golden', version: '1.0.0' },
          },
          token,
        );
        await golden(era, init.body, init.headers, 'sdk', token);
      });

      it('unexpected members and _meta go to the SDK', async () => {
        const token = tokens.member;
        const extra = request(
          era,
          'tools/call',
          { name: 'my_courses', arguments: {}, task: { ttl: 1 } },
          token,
        );
        await golden(era, extra.body, extra.headers, 'sdk', token);
        const state = request(
          era,
          'tools/call',
          { name: 'my_courses', arguments: {}, requestState: 'x' },
          token,
        );
        await golden(era, state.body, state.headers, 'sdk', token);
        const meta = request(era, 'tools/list', undefined, token);
        const withMeta = meta.body as { params?: Record<string, unknown> };
        const params = {
          ...withMeta.params,
          _meta: { ...(withMeta.params?._meta as object), progressToken: 1 },
        };
        await golden(era, { ...withMeta, params }, meta.headers, 'sdk', token);
        await golden(era, { ...(meta.body as object), extra: true }, meta.headers, 'sdk', token);
      });
    });
  }

  describe('headers the fast path leaves to the SDK', () => {
    const token = () => tokens.member;
    const legacy = () => request(LEGACY, 'tools/call', { name: 'my_courses', arguments: {} }, token());
    const modern = () => request(MODERN, 'tools/call', { name: 'my_courses', arguments: {} }, token());

    it('2025: no protocol header is 2025-03-26 and answered; unknown or 2024 revisions are the SDK’s 400', async () => {
      const { headers, body } = legacy();
      const { 'mcp-protocol-version': _, ...bare } = headers;
      await golden(LEGACY, body, bare, 'fast', token());
      for (const version of ['2025-06-18', '2025-03-26']) {
        await golden(LEGACY, body, { ...headers, 'mcp-protocol-version': version }, 'fast', token());
      }
      for (const version of ['1999-01-01', '2024-11-05', '2025-11-25, 2025-06-18']) {
        await golden(LEGACY, body, { ...headers, 'mcp-protocol-version': version }, 'sdk', token());
      }
    });

    it('2025: an Accept without text/event-stream is the SDK’s 406; a session id goes to the SDK', async () => {
      const { headers, body } = legacy();
      const answer = await golden(LEGACY, body, { ...headers, accept: 'application/json' }, 'sdk', token());
      assert.equal(answer.status, 406);
      await golden(LEGACY, body, { ...headers, 'mcp-session-id': 'abc' }, 'sdk', token());
    });

    it('2026-07-28: a missing or disagreeing Mcp-Method, Mcp-Name or version header is the SDK’s refusal', async () => {
      const { headers, body } = modern();
      const { 'mcp-name': _n, ...noName } = headers;
      const { 'mcp-method': _m, ...noMethod } = headers;
      const { 'mcp-protocol-version': _v, ...noVersion } = headers;
      for (const h of [
        noName,
        noMethod,
        noVersion,
        { ...headers, 'mcp-name': 'my_orders' },
        { ...headers, 'mcp-method': 'tools/list' },
        { ...headers, 'mcp-protocol-version': LEGACY },
      ]) {
        const answer = await golden(MODERN, body, h, 'sdk', token());
        assert.equal(answer.status, 400);
      }
    });

    it('2026-07-28: an envelope naming an unknown revision or missing a key is the SDK’s refusal', async () => {
      const { headers, body } = modern();
      const b = body as { params: Record<string, unknown> };
      for (const meta of [
        { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' },
        { 'io.modelcontextprotocol/protocolVersion': MODERN },
      ]) {
        const version = meta['io.modelcontextprotocol/protocolVersion'];
        const h = { ...headers, 'mcp-protocol-version': version };
        await golden(MODERN, { ...b, params: { ...b.params, _meta: meta } }, h, 'sdk', token());
      }
    });
  });
});
