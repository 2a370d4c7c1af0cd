import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import { createEvent } from '../../src/domain/community/events.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { isoIn } from '../../src/store/time.ts';
import { issueTestToken } from '../support/tokens.ts';
import { type Seeded, seedSchool } from '../support/world-mcp.ts';
import { connectClient, type LiveApp, startLiveApp } from './harness.ts';

/**
 * The public tools keep the contract their schemas advertise, for each caller: what
 * `tools/list` shows is what `tools/call` enforces, unknown argument keys are named, and the
 * descriptions name the fields the output really has.
 */

type Text = Array<{ type: string; text: string }>;
type Schema = { properties?: Record<string, { description?: string }>; required?: string[] };

const SCHOOL_TOOLS = ['get_course_outline', 'list_upcoming_events', 'search_courses'];

function textOf(res: { content?: unknown }): string {
  return (res.content as Text)[0].text;
}

describe('MCP public tools: schema and behaviour agree for each caller', () => {
  let live: LiveApp;
  let seeded: Seeded;
  let anonymous: Client;
  let member: Client;
  let operator: Client;
  before(async () => {
    live = await startLiveApp();
    seeded = await seedSchool(live.t);
    const db = live.t.runtime.db;
    // Nothing public: a draft course and a members-only event. Never listed, never counted.
    const hidden = await createSchool(db, { name: 'Hidden School', subdomain: 'hidden' });
    await createCourse(db, hidden.id, { slug: 'draft-only', title: 'Draft only' });
    await createEvent(db, hidden.id, {
      title: 'Members evening',
      startsAt: isoIn(86400),
      endsAt: isoIn(90000),
      visibility: 'members',
    });
    // Only an upcoming public event: anonymous tools show it, so the school is listed.
    const events = await createSchool(db, { name: 'Events Only', subdomain: 'eventsonly' });
    await createEvent(db, events.id, { title: 'Open day', startsAt: isoIn(86400), endsAt: isoIn(90000) });
    const memberToken = await issueTestToken(live.t, {
      userId: seeded.studentId,
      schoolId: seeded.schoolId,
      audience: 'member',
      scopes: ['openid', 'account:read'],
    });
    const operatorToken = await issueTestToken(live.t, {
      userId: seeded.ownerId,
      schoolId: seeded.schoolId,
      audience: 'operator',
      scopes: [...OPERATOR_SCOPES],
    });
    anonymous = (await connectClient(live)).client;
    member = (await connectClient(live, { token: memberToken.token })).client;
    operator = (await connectClient(live, { token: operatorToken.token })).client;
  });
  after(async () => {
    await Promise.all([anonymous.close(), member.close(), operator.close()]);
    await live.close();
  });

  it('anonymous tools/list marks school required where there is no token to default it from', async () => {
    const { tools } = await anonymous.listTools();
    for (const name of SCHOOL_TOOLS) {
      const schema = tools.find((t) => t.name === name)?.inputSchema as Schema;
      assert.ok(schema.required?.includes('school'), `${name} requires school`);
      assert.match(schema.properties?.school?.description ?? '', /list_schools/, name);
      assert.doesNotMatch(schema.properties?.school?.description ?? '', /Optional/, name);
    }
  });

  it("with a token, school is optional and defaults to the token's school, as the schema says", async () => {
    const { tools } = await member.listTools();
    for (const name of SCHOOL_TOOLS) {
      const schema = tools.find((t) => t.name === name)?.inputSchema as Schema;
      assert.ok(!schema.required?.includes('school'), `${name} does not require school with a token`);
      assert.match(schema.properties?.school?.description ?? '', /defaults to the token's school/, name);
    }
    const res = await member.callTool({ name: 'search_courses', arguments: {} });
    assert.equal(res.isError, undefined);
    assert.deepEqual((res.structuredContent as { school: unknown }).school, {
      name: 'Acme Academy',
      subdomain: 'acme',
    });
    // Naming another school reads that school's public catalogue.
    const other = await member.callTool({ name: 'search_courses', arguments: { school: 'other' } });
    assert.deepEqual(
      (other.structuredContent as { courses: Array<{ slug: string }> }).courses.map((c) => c.slug),
      ['other-typescript'],
    );
  });

  it('an anonymous call without school is refused by the advertised schema, naming the argument', async () => {
    const res = await anonymous.callTool({ name: 'get_course_outline', arguments: { course: 'x' } });
    assert.equal(res.isError, true);
    assert.equal(
      textOf(res),
      'Input validation error: Invalid arguments for tool get_course_outline: school: required without a token: name the school by its subdomain (list_schools lists the schools with a public catalogue and their subdomains)',
    );
  });

  it('an unknown argument key is named with the keys the tool accepts (School is not school)', async () => {
    const res = await anonymous.callTool({ name: 'search_courses', arguments: { School: 'acme' } });
    assert.equal(res.isError, true);
    assert.match(
      textOf(res),
      /unknown argument "School" \(did you mean "school"\?\); accepted arguments: school, query, limit, cursor$/,
    );
    const withToken = await member.callTool({
      name: 'list_upcoming_events',
      arguments: { School: 'acme', page: 2 },
    });
    assert.equal(withToken.isError, true);
    assert.equal(
      textOf(withToken),
      'Input validation error: Invalid arguments for tool list_upcoming_events: unknown arguments "School" (did you mean "school"?), "page"; accepted arguments: school, limit, cursor',
    );
  });

  it('member and operator tools name unknown argument keys too', async () => {
    const mine = await member.callTool({ name: 'my_orders', arguments: { Limit: 5 } });
    assert.equal(mine.isError, true);
    assert.match(
      textOf(mine),
      /unknown argument "Limit" \(did you mean "limit"\?\); accepted arguments: limit, cursor$/,
    );
    const op = await operator.callTool({ name: 'courses_list', arguments: { Status: 'draft' } });
    assert.equal(op.isError, true);
    assert.match(textOf(op), /unknown argument "Status" \(did you mean "status"\?\); accepted arguments: /);
  });

  it('every input schema of the public and member tools refuses keys it does not list', async () => {
    const lists = [await anonymous.listTools(), await member.listTools()];
    for (const { tools } of lists) {
      for (const tool of tools) {
        assert.equal(
          (tool.inputSchema as { additionalProperties?: unknown }).additionalProperties,
          false,
          tool.name,
        );
      }
    }
  });

  it('descriptions name the output fields: a cursor argument is the nextCursor of the previous page', async () => {
    const lists = [await anonymous.listTools(), await member.listTools()];
    for (const { tools } of lists) {
      for (const tool of tools) {
        const cursor = (tool.inputSchema as Schema).properties?.cursor;
        if (!cursor) continue;
        const out = (tool.outputSchema as Schema | undefined)?.properties ?? {};
        assert.ok('nextCursor' in out, `${tool.name} outputs nextCursor`);
        assert.match(cursor.description ?? '', /\bnextCursor\b/, tool.name);
        assert.doesNotMatch(JSON.stringify(tool), /next_cursor/, tool.name);
      }
    }
  });

  it('list_schools lists the schools with something public, with counts, and nothing of the others', async () => {
    const res = await anonymous.callTool({ name: 'list_schools', arguments: {} });
    assert.equal(res.isError, undefined);
    assert.deepEqual(res.structuredContent, {
      schools: [
        { subdomain: 'acme', name: 'Acme Academy', publishedCourses: 1, upcomingEvents: 2 },
        { subdomain: 'eventsonly', name: 'Events Only', publishedCourses: 0, upcomingEvents: 1 },
        { subdomain: 'other', name: 'Other School', publishedCourses: 1, upcomingEvents: 0 },
      ],
      nextCursor: null,
    });
    assert.match(textOf(res), /^3 school\(s\) with a public catalogue: acme \(Acme Academy\), /);
    assert.doesNotMatch(JSON.stringify(res), /hidden|Hidden/);
  });

  it('list_schools filters by text and pages with limit and nextCursor', async () => {
    const found = await anonymous.callTool({ name: 'list_schools', arguments: { query: 'ACAD' } });
    assert.deepEqual(
      (found.structuredContent as { schools: Array<{ subdomain: string }> }).schools.map((s) => s.subdomain),
      ['acme'],
    );
    const none = await anonymous.callTool({ name: 'list_schools', arguments: { query: 'hidden' } });
    assert.deepEqual(none.structuredContent, { schools: [], nextCursor: null });

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await anonymous.callTool({
        name: 'list_schools',
        arguments: { limit: 2, ...(cursor ? { cursor } : {}) },
      });
      const out = page.structuredContent as {
        schools: Array<{ subdomain: string }>;
        nextCursor: string | null;
      };
      seen.push(...out.schools.map((s) => s.subdomain));
      cursor = out.nextCursor ?? undefined;
    } while (cursor);
    assert.deepEqual(seen, ['acme', 'eventsonly', 'other']);
    const bad = await anonymous.callTool({ name: 'list_schools', arguments: { cursor: 'bogus' } });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /invalid_cursor/);
  });

  it('list_schools is listed for every caller, read-only', async () => {
    for (const client of [anonymous, member, operator]) {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'list_schools');
      assert.equal(tool?.annotations?.readOnlyHint, true);
    }
  });
});
