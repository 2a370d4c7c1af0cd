import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { encodeCursor } from '../../src/domain/kernel/pagination.ts';
import { type Seeded, seedSchool } from '../support/world-mcp.ts';
import { connectClient, type LiveApp, startLiveApp } from './harness.ts';

const PUBLIC_TOOLS = [
  'get_course_outline',
  'how_to_authenticate',
  'list_schools',
  'list_upcoming_events',
  'search_courses',
];

for (const modern of [false, true]) {
  const era = modern ? '2026-07-28 (negotiated)' : '2025-11-25 (initialize)';
  describe(`MCP anonymous session, ${era}`, () => {
    let live: LiveApp;
    let seeded: Seeded;
    let client: Client;
    let protocolVersion: string | undefined;
    before(async () => {
      live = await startLiveApp();
      seeded = await seedSchool(live.t);
      const connected = await connectClient(live, { modern });
      client = connected.client;
      protocolVersion = connected.transport.protocolVersion;
    });
    after(async () => {
      await client.close();
      await live.close();
    });

    it('negotiates the newest revision of its era and tells the agent what it can do', () => {
      assert.equal(protocolVersion, modern ? '2026-07-28' : '2025-11-25');
      assert.deepEqual(client.getServerVersion(), { name: 'lectern', title: 'Lectern', version: '0.1.0' });
      const instructions = client.getInstructions() ?? '';
      assert.match(instructions, /search_courses/);
      assert.match(instructions, new RegExp(`${live.baseUrl}/auth\\.md`));
      assert.match(instructions, /insufficient_scope/);
    });

    it('lists exactly the public tools, read-only, with input and output schemas', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), PUBLIC_TOOLS);
      for (const tool of tools) {
        assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
        assert.equal(tool.annotations?.destructiveHint, false, tool.name);
        assert.equal(tool.inputSchema.type, 'object', tool.name);
        assert.equal(tool.outputSchema?.type, 'object', tool.name);
        assert.ok(tool.description && tool.description.length > 20, tool.name);
      }
    });

    it('search_courses finds published courses of the named school only', async () => {
      const res = await client.callTool({
        name: 'search_courses',
        arguments: { school: 'acme', query: 'typescript' },
      });
      assert.equal(res.isError, undefined);
      const out = res.structuredContent as {
        school: unknown;
        courses: Array<Record<string, unknown>>;
        nextCursor: unknown;
      };
      assert.deepEqual(out.school, { name: 'Acme Academy', subdomain: 'acme' });
      assert.deepEqual(
        out.courses.map((c) => c.slug),
        ['intro-to-typescript'],
      );
      assert.equal(out.courses[0].priceAmount, 4900);
      assert.equal(out.courses[0].currency, 'EUR');
      assert.equal(out.courses[0].free, false);
      assert.equal(out.nextCursor, null);
      const text = (res.content as Array<{ type: string; text: string }>)[0];
      assert.equal(text.type, 'text');
      assert.match(text.text, /^1 published course\(s\) at Acme Academy\./);
      assert.deepEqual(JSON.parse(text.text.slice(text.text.indexOf('{'))), out);
    });

    it('search_courses pages with limit and cursor', async () => {
      const { createCourse } = await import('../../src/domain/catalog/courses.ts');
      await createCourse(live.t.runtime.db, seeded.schoolId, {
        slug: `more-${modern}`,
        title: 'More',
        status: 'published',
      });
      const first = await client.callTool({
        name: 'search_courses',
        arguments: { school: 'acme', limit: 1 },
      });
      const p1 = first.structuredContent as { courses: Array<{ slug: string }>; nextCursor: string };
      assert.equal(p1.courses.length, 1);
      assert.ok(p1.nextCursor);
      const second = await client.callTool({
        name: 'search_courses',
        arguments: { school: 'acme', limit: 1, cursor: p1.nextCursor },
      });
      const p2 = second.structuredContent as { courses: Array<{ slug: string }>; nextCursor: string | null };
      assert.equal(p2.courses.length, 1);
      assert.notEqual(p2.courses[0].slug, p1.courses[0].slug);
    });

    it('get_course_outline shows titles, durations and free previews, never content', async () => {
      const res = await client.callTool({
        name: 'get_course_outline',
        arguments: { school: 'acme', course: 'intro-to-typescript' },
      });
      assert.equal(res.isError, undefined);
      const out = res.structuredContent as Record<string, unknown>;
      assert.deepEqual(out.sections, [
        {
          title: 'Basics',
          lectures: [
            {
              id: seeded.lectureIds[0],
              title: 'Welcome',
              type: 'video',
              durationSeconds: 300,
              freePreview: true,
            },
            {
              id: seeded.lectureIds[1],
              title: 'Types',
              type: 'text',
              durationSeconds: 600,
              freePreview: false,
            },
          ],
        },
        {
          title: 'Generics',
          lectures: [
            {
              id: seeded.lectureIds[2],
              title: 'Generic functions',
              type: 'video',
              durationSeconds: 900,
              freePreview: false,
            },
          ],
        },
      ]);
      assert.equal(out.lectureCount, 3);
      assert.equal(out.totalDurationSeconds, 1800);
      const raw = JSON.stringify(res);
      assert.doesNotMatch(raw, /PAID BODY TEXT|secret-welcome/);
    });

    it('get_course_outline of a draft is a tool error, as is an unknown school', async () => {
      const draft = await client.callTool({
        name: 'get_course_outline',
        arguments: { school: 'acme', course: 'secret-draft' },
      });
      assert.equal(draft.isError, true);
      assert.match(
        (draft.content as Array<{ text: string }>)[0].text,
        /Not Found \(not_found\): No published course has the slug "secret-draft"\./,
      );
      const school = await client.callTool({ name: 'search_courses', arguments: { school: 'nowhere' } });
      assert.equal(school.isError, true);
      assert.match(
        (school.content as Array<{ text: string }>)[0].text,
        /No school has the subdomain "nowhere"/,
      );
    });

    it('list_upcoming_events lists public scheduled events that have not ended, without private links', async () => {
      const res = await client.callTool({ name: 'list_upcoming_events', arguments: { school: 'acme' } });
      const out = res.structuredContent as { events: Array<Record<string, unknown>> };
      assert.deepEqual(
        out.events.map((e) => [e.title, e.online, e.location, e.capacity, e.spotsLeft]),
        [
          ['Live Q&A', true, null, 10, 9],
          ['Office hours', false, 'Room 1', null, null],
        ],
      );
      assert.doesNotMatch(JSON.stringify(res), /secret-room|Members-only|Past webinar/);
    });

    it('list_upcoming_events pages with its own cursors; a members-only, past or foreign event as cursor is a tool error', async () => {
      const first = await client.callTool({
        name: 'list_upcoming_events',
        arguments: { school: 'acme', limit: 1 },
      });
      const p1 = first.structuredContent as { events: Array<{ title: string }>; nextCursor: string };
      assert.deepEqual(
        p1.events.map((e) => e.title),
        ['Live Q&A'],
      );
      const second = await client.callTool({
        name: 'list_upcoming_events',
        arguments: { school: 'acme', limit: 1, cursor: p1.nextCursor },
      });
      assert.equal(second.isError, undefined);
      assert.deepEqual(
        (second.structuredContent as { events: Array<{ title: string }> }).events.map((e) => e.title),
        ['Office hours'],
      );
      const { createEvent } = await import('../../src/domain/community/events.ts');
      const { isoIn } = await import('../../src/store/time.ts');
      const foreign = await createEvent(live.t.runtime.db, seeded.otherSchoolId, {
        title: `Other school meetup ${modern}`,
        startsAt: isoIn(86400),
        endsAt: isoIn(90000),
      });
      const hidden = await live.t.runtime.db
        .selectFrom('events')
        .select('id')
        .where('school_id', '=', seeded.schoolId)
        .where('title', 'in', ['Members-only meetup', 'Past webinar'])
        .execute();
      assert.equal(hidden.length, 2);
      for (const id of [...hidden.map((e) => e.id), foreign.id]) {
        const res = await client.callTool({
          name: 'list_upcoming_events',
          arguments: { school: 'acme', limit: 1, cursor: encodeCursor(id) },
        });
        assert.equal(res.isError, true, id);
        assert.deepEqual(res.content, [
          { type: 'text', text: 'Bad Request (invalid_cursor): The cursor is not one this API returned.' },
        ]);
      }
    });

    it('how_to_authenticate links the walkthrough and the discovery documents', async () => {
      const res = await client.callTool({ name: 'how_to_authenticate', arguments: {} });
      const out = res.structuredContent as Record<string, unknown>;
      assert.equal(out.walkthrough, `${live.baseUrl}/auth.md`);
      assert.equal(out.protectedResourceMetadata, `${live.baseUrl}/.well-known/oauth-protected-resource/mcp`);
      assert.equal(out.authorizationServerMetadata, `${live.baseUrl}/.well-known/oauth-authorization-server`);
      assert.equal(out.resource, live.baseUrl);
      const scopes = out.scopes as { operator: string[]; member: string[] };
      assert.ok(scopes.operator.includes('courses:read'));
      assert.deepEqual(scopes.member, ['openid', 'account:read', 'account:write']);
      assert.equal(out.signedIn, null);
      assert.match(
        (res.content as Array<{ text: string }>)[0].text,
        /^Not signed in\. Call how_to_authenticate with sign_in=true/,
      );
    });

    it('without a token and without a school argument, the tool says which argument is missing', async () => {
      const res = await client.callTool({ name: 'search_courses', arguments: {} });
      assert.equal(res.isError, true);
      assert.match(
        (res.content as Array<{ text: string }>)[0].text,
        /school: required without a token: name the school by its subdomain \(list_schools lists/,
      );
    });
  });
}
