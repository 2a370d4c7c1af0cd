import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENGINE } from '../support/database.ts';
import { ownerOperatorToken, type Seeded, seedSchool } from '../support/world-mcp.ts';
import { connectClient, type LiveApp, startLiveApp } from './harness.ts';

type Text = Array<{ type: string; text: string }>;
const textOf = (res: { content?: unknown }) => (res.content as Text)[0].text;

/**
 * An operator tool's arguments are validated once, by the schema its inputSchema lists (derived
 * from the operation's own), and the typed values reach the handler as they are.
 */
describe(`MCP operator tools: one argument schema on ${ENGINE}`, () => {
  let live: LiveApp;
  let seeded: Seeded;
  before(async () => {
    live = await startLiveApp();
    seeded = await seedSchool(live.t);
  });
  after(() => live.close());

  it('a query number is a JSON number: 1 pages, "1" is refused as the schema lists', async () => {
    const { client } = await connectClient(live, {
      token: await ownerOperatorToken(live.t, seeded, ['courses:read', 'coupons:read']),
    });
    const { tools } = await client.listTools();
    const listed = tools.find((t) => t.name === 'courses_list')?.inputSchema.properties?.limit as {
      type: string;
    };
    assert.equal(listed.type, 'integer');
    const page = await client.callTool({ name: 'courses_list', arguments: { limit: 1 } });
    assert.equal(page.isError, undefined, JSON.stringify(page));
    const out = page.structuredContent as { data: unknown[]; next_cursor: string | null };
    assert.equal(out.data.length, 1);
    assert.equal(typeof out.next_cursor, 'string');
    const text = await client.callTool({ name: 'courses_list', arguments: { limit: '1' } });
    assert.equal(text.isError, true);
    assert.match(textOf(text), /^Input validation error: .*limit: /);
    const tooBig = await client.callTool({ name: 'courses_list', arguments: { limit: 101 } });
    assert.equal(tooBig.isError, true);
    assert.match(textOf(tooBig), /limit: .*100/);
    const flag = await client.callTool({ name: 'coupons_list', arguments: { active: 'true' } });
    assert.equal(flag.isError, undefined, JSON.stringify(flag));
    await client.close();
  });

  it('rules over a whole part still hold, naming their field', async () => {
    const { client } = await connectClient(live, {
      token: await ownerOperatorToken(live.t, seeded, ['school:read', 'students:write']),
    });
    const range = await client.callTool({
      name: 'school_list_audit_events',
      arguments: { from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z' },
    });
    assert.equal(range.isError, true);
    assert.match(textOf(range), /from: must be before `to`/);
    const ordered = await client.callTool({
      name: 'school_list_audit_events',
      arguments: { from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z' },
    });
    assert.equal(ordered.isError, undefined, JSON.stringify(ordered));
    const neither = await client.callTool({
      name: 'students_enroll',
      arguments: { course_id: seeded.publishedCourseId },
    });
    assert.equal(neither.isError, true);
    assert.match(textOf(neither), /user_id/);
    await client.close();
  });
});
