import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InsufficientScopeError } from '@modelcontextprotocol/client';
import { adminOperations } from '../../src/admin/catalogue.ts';
import { hasScope, MCP_CHALLENGE_SCOPES, OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { issueTestToken } from '../support/tokens.ts';
import { createWorld } from '../support/world.ts';
import { ownerOperatorToken, type Seeded, seedSchool } from '../support/world-mcp.ts';
import { connectClient, type LiveApp, postMcp, startLiveApp } from './harness.ts';

const PUBLIC_TOOLS = [
  'get_course_outline',
  'how_to_authenticate',
  'list_schools',
  'list_upcoming_events',
  'search_courses',
];
type Text = Array<{ type: string; text: string }>;

/** What a token with these scopes must list: the public tools plus every JSON operation it may run. */
function expectedTools(scopes: readonly string[]): string[] {
  const ops = adminOperations.filter((op) => !op.binary && hasScope(scopes, op.scope));
  return [...PUBLIC_TOOLS, ...ops.map((op) => op.name.replace(/\./g, '_'))].sort();
}

describe('MCP operator tools, one per admin operation', () => {
  let live: LiveApp;
  let seeded: Seeded;
  const operatorToken = (scopes: string[]) => ownerOperatorToken(live.t, seeded, scopes);
  before(async () => {
    live = await startLiveApp();
    seeded = await seedSchool(live.t);
  });
  after(() => live.close());

  it('the catalogue yields one valid tool name per JSON operation', () => {
    for (const op of adminOperations.filter((o) => !o.binary)) {
      assert.match(op.name.replace(/\./g, '_'), /^[a-z][a-z0-9_]{0,63}$/);
    }
    assert.ok(adminOperations.some((op) => op.name === 'coupons.create'));
  });

  for (const scopes of [
    ['coupons:read'],
    ['openid', 'coupons:write'],
    [...MCP_CHALLENGE_SCOPES],
    [...OPERATOR_SCOPES],
  ]) {
    it(`lists exactly what ${scopes.length > 3 ? `${scopes.length} scopes` : scopes.join(' ')} allow`, async () => {
      const { client } = await connectClient(live, { token: await operatorToken(scopes) });
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), expectedTools(scopes));
      await client.close();
    });
  }

  it('every read-only tool that needs no argument answers on the demo school with structured content matching its schema', async () => {
    const demoLive = await startLiveApp();
    try {
      const { demo } = await createWorld(demoLive.t);
      const token = await demo.token([...OPERATOR_SCOPES]);
      const { client } = await connectClient(demoLive, { token });
      const { tools } = await client.listTools();
      const readOnly = tools.filter(
        (t) =>
          t.annotations?.readOnlyHint && (t.inputSchema.required ?? []).length === 0 && t.name.includes('_'),
      );
      const operatorReads = readOnly.filter((t) => !PUBLIC_TOOLS.includes(t.name));
      assert.ok(operatorReads.length >= 20, `only ${operatorReads.length} read tools`);
      const failures: string[] = [];
      for (const tool of operatorReads) {
        const res = await client.callTool({ name: tool.name, arguments: {} });
        if (res.isError || typeof res.structuredContent !== 'object') {
          failures.push(`${tool.name}: ${(res.content as Text)[0]?.text}`);
        }
      }
      assert.deepEqual(failures, []);
      await client.close();
    } finally {
      await demoLive.close();
    }
  });

  it('tools carry input/output schemas and annotations from the operation', async () => {
    const { client } = await connectClient(live, {
      token: await operatorToken(['coupons:write']),
      modern: true,
    });
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(byName.coupons_list.annotations, {
      title: 'List coupons',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    assert.equal(byName.coupons_delete.annotations?.destructiveHint, true);
    assert.equal(byName.coupons_create.annotations?.readOnlyHint, false);
    assert.equal(byName.coupons_create.annotations?.idempotentHint, false);
    assert.deepEqual(byName.coupons_get.inputSchema.required, ['coupon_id']);
    assert.equal(byName.coupons_create.inputSchema.additionalProperties, false);
    assert.ok(Object.keys(byName.coupons_create.inputSchema.properties ?? {}).includes('code'));
    assert.ok(Object.keys(byName.coupons_list.outputSchema?.properties ?? {}).includes('data'));
    assert.match(byName.coupons_create.description ?? '', /Needs the coupons:write scope\./);
    await client.close();
  });

  it('create, list, get, update and delete a coupon through the tools, as over REST', async () => {
    const { client } = await connectClient(live, { token: await operatorToken(['coupons:write']) });
    const created = await client.callTool({
      name: 'coupons_create',
      arguments: { code: 'spring25', kind: 'percent', percent_off: 25 },
    });
    assert.equal(created.isError, undefined, JSON.stringify(created));
    const coupon = created.structuredContent as Record<string, unknown>;
    assert.equal(coupon.code, 'SPRING25');
    assert.match((created.content as Text)[0].text, /^Create a coupon: done\./);

    const list = await client.callTool({ name: 'coupons_list', arguments: { limit: 10, active: 'true' } });
    assert.deepEqual(
      (list.structuredContent as { data: Array<{ id: string }> }).data.map((c) => c.id),
      [coupon.id],
    );
    const got = await client.callTool({ name: 'coupons_get', arguments: { coupon_id: coupon.id } });
    assert.deepEqual(got.structuredContent, coupon);
    const updated = await client.callTool({
      name: 'coupons_update',
      arguments: { coupon_id: coupon.id, active: false },
    });
    assert.equal((updated.structuredContent as { active: boolean }).active, false);
    const deleted = await client.callTool({ name: 'coupons_delete', arguments: { coupon_id: coupon.id } });
    assert.deepEqual(deleted.structuredContent, { ok: true });
    const gone = await client.callTool({ name: 'coupons_get', arguments: { coupon_id: coupon.id } });
    assert.equal(gone.isError, true);
    assert.match((gone.content as Text)[0].text, /^Not Found \(not_found\)/);
    await client.close();
  });

  it('path, query and body fields are one flat argument object (a body field named body included)', async () => {
    const { client } = await connectClient(live, {
      token: await operatorToken(['courses:write', 'curriculum:write', 'posts:write']),
    });
    const post = await client.callTool({
      name: 'posts_create',
      arguments: { title: 'Hello', slug: 'hello', body: 'The post text.' },
    });
    assert.equal(post.isError, undefined, JSON.stringify(post));
    assert.equal((post.structuredContent as { body: string }).body, 'The post text.');
    const section = await client.callTool({
      name: 'curriculum_create_section',
      arguments: { course_id: seeded.publishedCourseId, title: 'Advanced' },
    });
    assert.equal(section.isError, undefined, JSON.stringify(section));
    const sectionId = (section.structuredContent as { id: string }).id;
    const lecture = await client.callTool({
      name: 'curriculum_create_lecture',
      arguments: { section_id: sectionId, title: 'Mapped types', type: 'text', body: 'Lecture text.' },
    });
    assert.equal(lecture.isError, undefined, JSON.stringify(lecture));
    assert.equal((lecture.structuredContent as { title: string }).title, 'Mapped types');
    await client.close();
  });

  it('date-time, URL and nullable arguments validate (events_create, events_list with a range)', async () => {
    const { client } = await connectClient(live, { token: await operatorToken(['events:write']) });
    const created = await client.callTool({
      name: 'events_create',
      arguments: {
        title: 'Agent meetup',
        starts_at: '2030-04-02T17:00:00Z',
        ends_at: '2030-04-02T18:00:00Z',
        online_url: 'https://meet.example/agents',
        capacity: null,
      },
    });
    assert.equal(created.isError, undefined, JSON.stringify(created));
    const bad = await client.callTool({
      name: 'events_create',
      arguments: { title: 'Bad', starts_at: 'next tuesday', ends_at: '2030-04-02T18:00:00Z' },
    });
    assert.equal(bad.isError, true);
    assert.match((bad.content as Text)[0].text, /starts_at/);
    const listed = await client.callTool({
      name: 'events_list',
      arguments: { ends_after: '2030-01-01T00:00:00Z', limit: 5 },
    });
    assert.equal(listed.isError, undefined, JSON.stringify(listed));
    assert.ok(
      (listed.structuredContent as { data: Array<{ title: string }> }).data.some(
        (e) => e.title === 'Agent meetup',
      ),
    );
    await client.close();
  });

  it('domain validation failures are tool errors naming the field', async () => {
    const { client } = await connectClient(live, { token: await operatorToken(['coupons:write']) });
    const res = await client.callTool({
      name: 'coupons_create',
      arguments: { code: 'FIXED', kind: 'fixed' },
    });
    assert.equal(res.isError, true);
    assert.match((res.content as Text)[0].text, /^Validation Failed \(validation_failed\)/);
    const schema = await client.callTool({ name: 'coupons_create', arguments: { code: 'X', kind: 'nope' } });
    assert.equal(schema.isError, true);
    assert.match((schema.content as Text)[0].text, /Input validation error/);
    const unknownField = await client.callTool({
      name: 'coupons_create',
      arguments: { code: 'Y', kind: 'percent', percent_off: 5, colour: 'red' },
    });
    assert.equal(unknownField.isError, true);
    await client.close();
  });

  it('a write tool with a read token is 403 insufficient_scope naming the write scope', async () => {
    const { client } = await connectClient(live, { token: await operatorToken(['coupons:read']) });
    await assert.rejects(
      client.callTool({ name: 'coupons_create', arguments: { code: 'Z', kind: 'percent', percent_off: 5 } }),
      (err: unknown) => err instanceof InsufficientScopeError && err.requiredScope === 'coupons:write',
    );
    await client.close();
  });

  it('a member token lists no operator tool and is refused one with 403', async () => {
    const { token } = await issueTestToken(live.t, {
      userId: seeded.studentId,
      schoolId: seeded.schoolId,
      audience: 'member',
      scopes: ['account:read'],
    });
    const { client } = await connectClient(live, { token });
    const { tools } = await client.listTools();
    assert.ok(!tools.some((t) => t.name.startsWith('coupons_')));
    await client.close();
    const res = await postMcp(
      live,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'coupons_list', arguments: {} } },
      { Authorization: `Bearer ${token}` },
    );
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('www-authenticate'), null, 'no step-up a member app could take');
    const body = (await res.json()) as { error: { code: number; data: { error: string } } };
    assert.equal(body.error.code, -32003);
    assert.equal(body.error.data.error, 'wrong_audience');
  });

  it('anonymous calls of operator tools are 401 asking for the challenge scopes plus a write scope', async () => {
    const prm = `${live.baseUrl}/.well-known/oauth-protected-resource/mcp`;
    const read = await postMcp(live, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'coupons_list' },
    });
    assert.equal(read.status, 401);
    assert.equal(
      read.headers.get('www-authenticate'),
      `Bearer resource_metadata="${prm}", scope="${MCP_CHALLENGE_SCOPES.join(' ')}"`,
    );
    const write = await postMcp(live, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'coupons_create' },
    });
    assert.equal(
      write.headers.get('www-authenticate'),
      `Bearer resource_metadata="${prm}", scope="${[...MCP_CHALLENGE_SCOPES, 'coupons:write'].join(' ')}"`,
    );
  });

  it('an operator token of a user who lost the owner role gets 403 not_an_operator, not data', async () => {
    const token = await operatorToken(['coupons:read']);
    await live.t.runtime.db
      .updateTable('memberships')
      .set({ roles: JSON.stringify(['student']) })
      .where('user_id', '=', seeded.ownerId)
      .where('school_id', '=', seeded.schoolId)
      .execute();
    try {
      const { client } = await connectClient(live, { token });
      assert.ok(!(await client.listTools()).tools.some((t) => t.name === 'coupons_list'));
      await client.close();
      const res = await postMcp(
        live,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'coupons_list', arguments: {} } },
        { Authorization: `Bearer ${token}` },
      );
      assert.equal(res.status, 403);
      assert.equal(res.headers.get('www-authenticate'), null);
      const body = (await res.json()) as { error: { message: string; data: { error: string } } };
      assert.equal(body.error.data.error, 'not_an_operator');
      assert.match(body.error.message, /no longer an owner or admin/);
    } finally {
      await live.t.runtime.db
        .updateTable('memberships')
        .set({ roles: JSON.stringify(['owner']) })
        .where('user_id', '=', seeded.ownerId)
        .where('school_id', '=', seeded.schoolId)
        .execute();
    }
  });
});
