import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { seedSchool } from '../support/world-mcp.ts';
import { connectClient, type LiveApp, startLiveApp } from './harness.ts';

/**
 * An anonymous agent goes from `tools/list` to a course outline without guessing:
 * every argument it sends comes from a listed schema or from a previous result. Run with both
 * client generations most hosts embed: the v2 client (`@modelcontextprotocol/client`) and the v1
 * SDK (`@modelcontextprotocol/sdk`), which also checks each structured result against the
 * listed output schema.
 */

interface ListedTool {
  name: string;
  inputSchema: { properties?: Record<string, unknown>; required?: string[] };
}
interface CallResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}
/** What the journey needs of either client generation. */
interface AgentClient {
  listTools(): Promise<{ tools: ListedTool[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<CallResult>;
}

/** Calls a listed tool after checking the arguments against its listed schema, as a careful agent does. */
async function call(client: AgentClient, tools: ListedTool[], name: string, args: Record<string, unknown>) {
  const tool = tools.find((t) => t.name === name);
  assert.ok(tool, `${name} is listed`);
  const known = Object.keys(tool.inputSchema.properties ?? {});
  for (const key of Object.keys(args)) assert.ok(known.includes(key), `${name} lists ${key}`);
  for (const key of tool.inputSchema.required ?? []) assert.ok(key in args, `${name} needs ${key}`);
  const res = await client.callTool({ name, arguments: args });
  assert.notEqual(res.isError, true, `${name} succeeded`);
  return res.structuredContent as Record<string, unknown>;
}

/** list tools → list_schools → search_courses of a school → get_course_outline of a result. */
async function journey(client: AgentClient) {
  const { tools } = await client.listTools();
  // The schema says what an anonymous caller must send: the school, which list_schools names.
  const search = tools.find((t) => t.name === 'search_courses');
  assert.deepEqual(search?.inputSchema.required, ['school']);

  const { schools } = (await call(client, tools, 'list_schools', {})) as {
    schools: Array<{ subdomain: string; name: string; publishedCourses: number }>;
  };
  const school = schools.find((s) => s.publishedCourses > 0);
  assert.ok(school, 'a school with published courses is listed');

  const { courses } = (await call(client, tools, 'search_courses', { school: school.subdomain })) as {
    courses: Array<{ slug: string; title: string }>;
  };
  assert.equal(courses.length, school.publishedCourses);

  const outline = await call(client, tools, 'get_course_outline', {
    school: school.subdomain,
    course: courses[0].slug,
  });
  return { school: school.subdomain, outline };
}

describe('MCP anonymous agent journey: from tools/list to a course outline', () => {
  let live: LiveApp;
  before(async () => {
    live = await startLiveApp();
    await seedSchool(live.t);
  });
  after(() => live.close());

  for (const modern of [false, true]) {
    it(`with the v2 client (${modern ? '2026-07-28' : '2025-11-25'})`, async () => {
      const { client } = await connectClient(live, { modern });
      try {
        const { school, outline } = await journey(client as unknown as AgentClient);
        assert.equal(school, 'acme');
        assert.equal((outline.course as { title: string }).title, 'Intro to TypeScript');
        assert.equal(outline.lectureCount, 3);
      } finally {
        await client.close();
      }
    });
  }

  it('with the v1 SDK client', async () => {
    const client = new ClientV1({ name: 'lectern-test-v1', version: '1.0.0' });
    await client.connect(new TransportV1(live.mcpUrl));
    try {
      const { school, outline } = await journey(client as unknown as AgentClient);
      assert.equal(school, 'acme');
      assert.equal((outline.course as { title: string }).title, 'Intro to TypeScript');
      assert.equal(outline.totalDurationSeconds, 1800);
    } finally {
      await client.close();
    }
  });
});
