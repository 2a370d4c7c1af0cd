/**
 * What tools/list and the server's instructions show a model comes from this deployment, never
 * from the demo: a deployment without demo data (SEED_DEMO off) has no "demo" school, so an
 * example naming it (or a demo slug) would send a model to a 404. Both SDK generations, every
 * kind of caller.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { DEMO_MEMBER_APP_ID } from '../../src/domain/demo/demo-seed.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { seedAudienceTokens } from '../support/world-mcp.ts';
import { type LiveApp, SDK_GENERATIONS, type SdkSession, startLiveApp } from './harness.ts';

/** The demo's own names: its school's subdomain, its member app, its slugs and codes. */
const DEMO_VALUES = [
  'demo',
  DEMO_MEMBER_APP_ID,
  ...Object.values(DEMO.courses),
  ...Object.values(DEMO.posts),
  ...Object.values(DEMO.coupons),
];

/** Where a demo value appears in `text`, as a whole word (case-insensitive), or undefined. */
function demoValueIn(text: string): string | undefined {
  for (const value of DEMO_VALUES) {
    const escaped = value.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
    const match = new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, 'i').exec(text);
    if (match) return text.slice(Math.max(0, match.index - 80), match.index + 80);
  }
  return undefined;
}

/** A session of one SDK generation, named for this test. */
const SDKS = Object.entries(SDK_GENERATIONS).map(
  ([sdk, connect]) =>
    [sdk, (url: URL, token?: string): Promise<SdkSession> => connect(url, 'examples', token)] as const,
);

describe('MCP examples come from the deployment, not the demo', () => {
  let live: LiveApp;
  const tokens: Record<'anonymous' | 'member' | 'operator', string | undefined> = {
    anonymous: undefined,
    member: undefined,
    operator: undefined,
  };
  before(async () => {
    live = await startLiveApp();
    Object.assign(tokens, await seedAudienceTokens(live.t));
  });
  after(() => live.close());

  it('the test deployment has no demo data', async () => {
    assert.equal(live.t.config.seedDemo, false);
    assert.equal(await findSchoolBySubdomain(live.t.runtime.db, 'demo'), undefined);
  });

  for (const [sdk, connect] of SDKS) {
    for (const caller of ['anonymous', 'member', 'operator'] as const) {
      it(`${sdk}, ${caller}: no tool schema, description or instruction names the demo school or its slugs`, async () => {
        const session = await connect(live.mcpUrl, tokens[caller]);
        try {
          assert.ok(session.instructions, 'the server sends instructions');
          assert.equal(demoValueIn(session.instructions), undefined, session.instructions);
          // The instructions name this deployment.
          assert.ok(session.instructions.includes(`Lectern at ${live.baseUrl} hosts`), session.instructions);
          assert.ok(session.tools.length >= 5);
          for (const tool of session.tools) {
            const listed = JSON.stringify(tool);
            assert.equal(demoValueIn(listed), undefined, listed.slice(0, 200));
          }
          const guide = JSON.stringify(await session.call('how_to_authenticate', {}));
          assert.equal(demoValueIn(guide), undefined);
          const schoolArg = JSON.stringify(
            (
              session.tools as Array<{ name: string; inputSchema: { properties: Record<string, unknown> } }>
            ).find((t) => t.name === 'search_courses')?.inputSchema.properties.school,
          );
          assert.match(schoolArg, /as list_schools gives it/);
        } finally {
          await session.close();
        }
      });
    }

    it(`${sdk}: the error for a missing school points at list_schools, with no example to guess from`, async () => {
      const session = await connect(live.mcpUrl);
      try {
        const result = (await session.call('search_courses', {})) as {
          isError?: boolean;
          content: Array<{ text: string }>;
        };
        assert.equal(result.isError, true);
        const text = result.content[0].text;
        assert.match(
          text,
          /school: required without a token: name the school by its subdomain \(list_schools lists/,
        );
        assert.equal(demoValueIn(text), undefined, text);
      } finally {
        await session.close();
      }
    });
  }
});
