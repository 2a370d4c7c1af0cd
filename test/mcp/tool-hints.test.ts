/**
 * Every tool carries all four MCP tool annotations, each set to what is true of it (a host that
 * finds one missing treats the tool as a destructive open-world write and asks before every
 * call). Listed over HTTP by both SDK generations, anonymously and with each audience's token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminOperations } from '../../src/admin/catalogue.ts';
import { REACHES_OUTSIDE } from '../../src/mcp/hints.ts';
import { seedAudienceTokens } from '../support/world-mcp.ts';
import { type LiveApp, SDK_GENERATIONS, startLiveApp } from './harness.ts';

interface Hints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}
interface Listed {
  name: string;
  annotations?: Record<string, unknown>;
}

const KEYS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
const hints = (readOnly: boolean, destructive: boolean, idempotent: boolean, openWorld: boolean): Hints => ({
  readOnlyHint: readOnly,
  destructiveHint: destructive,
  idempotentHint: idempotent,
  openWorldHint: openWorld,
});
const LOOKUP = hints(true, false, true, false);

/** The tools/list of one SDK generation, anonymous or with a bearer token. */
const SDKS = Object.entries(SDK_GENERATIONS).map(
  ([sdk, connect]) =>
    [
      sdk,
      async (url: URL, token?: string): Promise<Listed[]> => {
        const session = await connect(url, 'hints', token);
        try {
          return session.tools as Listed[];
        } finally {
          await session.close();
        }
      },
    ] as const,
);

/** The four hints of a listed tool, after checking each is there and a boolean. */
function hintsOf(tool: Listed): Hints {
  const a = tool.annotations ?? {};
  for (const key of KEYS) assert.equal(typeof a[key], 'boolean', `${tool.name}: ${key} is ${a[key]}`);
  return {
    readOnlyHint: a.readOnlyHint as boolean,
    destructiveHint: a.destructiveHint as boolean,
    idempotentHint: a.idempotentHint as boolean,
    openWorldHint: a.openWorldHint as boolean,
  };
}

describe('MCP tool annotations: all four hints on every tool, true to what it does', () => {
  let live: LiveApp;
  const tokens = { operator: '', member: '' };
  before(async () => {
    live = await startLiveApp();
    Object.assign(tokens, await seedAudienceTokens(live.t));
  });
  after(() => live.close());

  for (const [sdk, list] of SDKS) {
    it(`${sdk}: anonymously, every public tool is a lookup of this server's data`, async () => {
      const tools = await list(live.mcpUrl);
      assert.ok(tools.length >= 5);
      for (const tool of tools) assert.deepEqual(hintsOf(tool), LOOKUP, tool.name);
    });

    it(`${sdk}: with a member token, reads are lookups and each write says what it does`, async () => {
      const byName = new Map((await list(live.mcpUrl, tokens.member)).map((t) => [t.name, hintsOf(t)]));
      for (const name of [
        'my_courses',
        'my_course_progress',
        'my_orders',
        'my_event_registrations',
        'list_schools',
        'how_to_authenticate',
      ]) {
        assert.deepEqual(byName.get(name), LOOKUP, name);
      }
      // Recording the same position or registering again changes nothing more.
      assert.deepEqual(byName.get('record_progress'), hints(false, false, true, false));
      assert.deepEqual(byName.get('register_for_event'), hints(false, false, true, false));
      // Gives up a seat; a second cancel changes nothing.
      assert.deepEqual(byName.get('cancel_event_registration'), hints(false, true, true, false));
    });

    it(`${sdk}: with an operator token, every operator tool's hints follow its method and what it reaches`, async () => {
      const listed = await list(live.mcpUrl, tokens.operator);
      const byName = new Map(listed.map((t) => [t.name, hintsOf(t)]));
      // A GET, a DELETE, a POST that creates, and POSTs that reach outside this server.
      assert.deepEqual(byName.get('courses_list'), hints(true, false, true, false));
      assert.deepEqual(byName.get('courses_get'), hints(true, false, true, false));
      assert.deepEqual(byName.get('courses_delete'), hints(false, true, true, false));
      assert.deepEqual(byName.get('courses_create'), hints(false, false, false, false));
      assert.deepEqual(byName.get('courses_update'), hints(false, false, true, false));
      assert.deepEqual(byName.get('school_create_webhook_endpoint'), hints(false, false, false, false));
      assert.deepEqual(byName.get('school_send_test_webhook'), hints(false, false, false, true));
      assert.deepEqual(byName.get('school_replay_webhooks'), hints(false, false, false, true));
      assert.deepEqual(byName.get('members_invite'), hints(false, false, false, true));
      assert.deepEqual(byName.get('members_resend_invitation'), hints(false, false, false, true));
      // POSTs that declare more than their method says.
      assert.deepEqual(byName.get('members_revoke_invitation'), hints(false, true, true, false));
      assert.deepEqual(byName.get('members_unlock'), hints(false, false, true, false));
      assert.deepEqual(byName.get('how_to_authenticate'), LOOKUP);

      const operations = adminOperations.filter((op) => !op.binary);
      assert.equal(
        listed.length,
        operations.length + 5,
        'every operation is listed, beside the public tools',
      );
      for (const op of operations) {
        const name = op.name.replace(/\./g, '_');
        const h = byName.get(name);
        assert.ok(h, `${name} listed`);
        assert.equal(h.openWorldHint, Object.hasOwn(REACHES_OUTSIDE, op.name), `${name} openWorldHint`);
        if (op.method === 'GET') assert.deepEqual(h, LOOKUP, name);
        else assert.equal(h.readOnlyHint, false, `${name} changes data`);
        if (op.method === 'DELETE') assert.equal(h.destructiveHint && h.idempotentHint, true, name);
        if (op.method === 'PUT' || op.method === 'PATCH') assert.equal(h.idempotentHint, true, name);
        if (op.method === 'POST' && !op.annotations.idempotent) assert.equal(h.idempotentHint, false, name);
      }
    });
  }

  it('the operations that reach outside are real operations of the catalogue', () => {
    const names = new Set(adminOperations.map((op) => op.name));
    for (const name of Object.keys(REACHES_OUTSIDE)) assert.ok(names.has(name), name);
  });
});
