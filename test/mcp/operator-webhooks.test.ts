import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ownerOperatorToken, type Seeded, seedSchool } from '../support/world-mcp.ts';
import { connectClient, type LiveApp, startLiveApp } from './harness.ts';

type Text = Array<{ type: string; text: string }>;

/** Issue #13: the audit trail and webhook endpoints as MCP operator tools (from the catalogue). */
describe('MCP operator tools: audit trail and webhooks', () => {
  let live: LiveApp;
  let seeded: Seeded;
  const token = (scopes: string[]) => ownerOperatorToken(live.t, seeded, scopes);
  before(async () => {
    live = await startLiveApp();
    seeded = await seedSchool(live.t);
  });
  after(() => live.close());

  it('an agent reads the audit trail and manages an endpoint; school:read cannot write', async () => {
    const { client } = await connectClient(live, { token: await token(['school:write']) });
    const created = await client.callTool({
      name: 'school_create_webhook_endpoint',
      arguments: { url: 'https://hooks.example.com/agent', event_types: ['enrollment.*'] },
    });
    assert.equal(created.isError, undefined, JSON.stringify(created));
    const endpoint = created.structuredContent as Record<string, string>;
    assert.match(endpoint.secret, /^whsec_/);
    const trail = await client.callTool({
      name: 'school_list_audit_events',
      arguments: { type: 'webhook_endpoint.created' },
    });
    const page = trail.structuredContent as { data: Array<{ type: string; data: { endpoint_id: string } }> };
    assert.equal(page.data[0].data.endpoint_id, endpoint.id);
    const bad = await client.callTool({ name: 'school_list_audit_events', arguments: { type: 'nope' } });
    assert.equal(bad.isError, true);
    assert.match((bad.content as Text)[0].text, /type/);
    await client.close();
    const reader = await connectClient(live, { token: await token(['school:read']) });
    const { tools } = await reader.client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('school_list_webhook_endpoints'));
    assert.ok(!names.includes('school_create_webhook_endpoint'));
    await reader.client.close();
  });
});
