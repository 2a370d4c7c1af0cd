/**
 * The one authorization decision (resource/authorization.ts) and how each surface renders it:
 * the same token meets the same refusal at the admin REST API, the Account GraphQL API and MCP.
 * RFC 6750 §3.1: a 403 carries an `insufficient_scope` challenge only for scopes the client could
 * be granted; a refusal no consent can lift carries none, so no client loops into consent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decide, grantedScopes } from '../../src/resource/authorization.ts';
import type { Principal } from '../../src/resource/principal.ts';
import { type LiveApp, postMcp, startLiveApp } from '../mcp/harness.ts';
import { issueTestToken } from '../support/tokens.ts';
import { createWorld } from '../support/world.ts';

function principal(overrides: Partial<Principal> = {}): Principal {
  return {
    tokenHash: 'h',
    userId: 'u',
    schoolId: 's',
    roles: ['owner'],
    clientId: 'c',
    client: { kind: 'loopback', reviewed: true, allowedScopes: null },
    grantId: 'g',
    audience: 'operator',
    scopes: new Set(['openid', 'courses:read']),
    resource: 'http://lectern.test',
    expiresAt: 0,
    ...overrides,
  };
}

describe('the one authorization decision', () => {
  it('allows what the audience, role and scopes allow (x:write implies x:read)', () => {
    assert.deepEqual(decide(principal(), { audience: 'operator', scopes: ['courses:read'] }), {
      allowed: true,
    });
    const writer = principal({ scopes: new Set(['courses:write']) });
    assert.equal(decide(writer, { audience: 'operator', scopes: ['courses:read'] }).allowed, true);
    assert.equal(decide(principal(), { scopes: ['openid'] }).allowed, true, 'any audience');
  });

  it('wrong_audience before anything else, in both directions', () => {
    const member = principal({ audience: 'member', scopes: new Set(['account:read']) });
    const d = decide(member, { audience: 'operator', scopes: ['courses:read'] });
    assert.equal(d.allowed, false);
    assert.equal(!d.allowed && d.reason, 'wrong_audience');
    const o = decide(principal({ scopes: new Set(['account:read']) }), {
      audience: 'member',
      scopes: ['account:read'],
    });
    assert.equal(!o.allowed && o.reason, 'wrong_audience');
  });

  it('not_an_operator when the person lost the owner and admin roles', () => {
    const d = decide(principal({ roles: ['student'] }), { audience: 'operator', scopes: ['courses:read'] });
    assert.equal(!d.allowed && d.reason, 'not_an_operator');
  });

  it('insufficient_scope names every missing scope, and offers only those the client may be granted', () => {
    const d = decide(principal(), { audience: 'operator', scopes: ['courses:write', 'coupons:write'] });
    assert.deepEqual(d, {
      allowed: false,
      reason: 'insufficient_scope',
      scopes: ['courses:write', 'coupons:write'],
      description: 'This request needs the courses:write coupons:write scopes.',
    });
    const unreviewed = principal({ client: { kind: 'cimd', reviewed: false, allowedScopes: null } });
    assert.deepEqual(decide(unreviewed, { audience: 'operator', scopes: ['courses:write'] }), {
      allowed: false,
      reason: 'insufficient_scope',
      scopes: [],
      description:
        'This request needs the courses:write scope. This client may not be granted courses:write.',
    });
    const app = principal({
      audience: 'member',
      roles: ['student'],
      client: { kind: 'member', reviewed: true, allowedScopes: ['openid', 'account:read'] },
      scopes: new Set(['openid', 'account:read']),
    });
    const write = decide(app, { audience: 'member', scopes: ['account:write'] });
    assert.equal(!write.allowed && write.reason === 'insufficient_scope' && write.scopes.length, 0);
  });
});

describe('roles as data: the standing table answers for tokens and the console alike', () => {
  // The console's person: no client, their roles' scopes (web/admin/console-kit.ts).
  const person = (roles: string[]) =>
    principal({
      roles,
      clientId: '',
      client: { kind: 'vendor', reviewed: true, allowedScopes: [] },
      scopes: grantedScopes(roles),
    });

  it('grants each role its rows in the scope vocabulary (write implies read)', () => {
    assert.deepEqual([...grantedScopes(['lecturer'])].sort(), [
      'courses:read',
      'curriculum:read',
      'curriculum:write',
      'storage:write',
      'students:read',
    ]);
    assert.deepEqual([...grantedScopes(['student'])], []);
    assert.ok(grantedScopes(['admin']).has('members:write') && grantedScopes(['owner']).has('school:write'));
  });

  it('a lecturer on the console reaches their rows only; with a client, not at all (not_an_operator)', () => {
    const need = (scope: string) => ({ audience: 'operator' as const, scopes: [scope] });
    assert.equal(decide(person(['lecturer']), need('curriculum:write')).allowed, true);
    assert.deepEqual(decide(person(['lecturer']), need('coupons:read')), {
      allowed: false,
      reason: 'insufficient_scope',
      scopes: [],
      description: 'This request needs the coupons:read scope. This client may not be granted coupons:read.',
    });
    const token = principal({ roles: ['lecturer'], scopes: new Set(['courses:read']) });
    const d = decide(token, need('courses:read'));
    assert.equal(!d.allowed && d.reason, 'not_an_operator');
  });

  it('a token never exceeds what its person’s roles grant, and is never told to step up to it', () => {
    const token = principal({ roles: ['admin', 'lecturer'], scopes: new Set(['courses:write']) });
    assert.equal(decide(token, { audience: 'operator', scopes: ['courses:write'] }).allowed, true);
    const student = principal({ roles: ['student'], clientId: '', scopes: new Set(['courses:read']) });
    const d = decide(student, { audience: 'operator', scopes: ['courses:read'] });
    assert.equal(!d.allowed && d.reason === 'insufficient_scope' && d.scopes.length, 0);
  });
});

describe('every surface renders the same decision', () => {
  let live: LiveApp;
  let operatorToken: string;
  let memberToken: string;
  let readOnlyToken: string;
  let unreviewedToken: string;

  before(async () => {
    live = await startLiveApp();
    const { demo } = await createWorld(live.t);
    const db = live.t.runtime.db;
    const schoolId = demo.schoolId;
    const owner = demo.ownerId;
    const student = demo.studentId;
    const token = async (
      userId: string,
      audience: 'operator' | 'member',
      scopes: string[],
      clientId?: string,
    ) => (await issueTestToken(live.t, { userId, schoolId, audience, scopes, clientId })).token;
    operatorToken = await token(owner, 'operator', ['openid', 'courses:read', 'coupons:read']);
    memberToken = await token(student, 'member', ['openid', 'account:read', 'account:write']);
    readOnlyToken = await token(owner, 'operator', ['courses:read', 'coupons:read'], 'read-only-client');
    unreviewedToken = await token(owner, 'operator', ['courses:read'], 'https://agent.example/client.json');
    await db
      .updateTable('oauth_clients')
      .set({ kind: 'cimd', reviewed: 0 })
      .where('id', '=', 'https://agent.example/client.json')
      .execute();
  });
  after(() => live.close());

  const rest = (token: string, path = '/api/v1/courses', init: RequestInit = {}) =>
    fetch(`${live.baseUrl}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
  const graphql = (token: string, query = '{ viewer { id } }') =>
    fetch(`${live.baseUrl}/account/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
  const mcp = (token: string, ...calls: Array<[string, Record<string, unknown>]>) =>
    postMcp(
      live,
      calls.length === 1
        ? {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: calls[0][0], arguments: calls[0][1] },
          }
        : calls.map(([name, args], i) => ({
            jsonrpc: '2.0',
            id: i + 1,
            method: 'tools/call',
            params: { name, arguments: args },
          })),
      { Authorization: `Bearer ${token}` },
    );

  it('a member token at the operator surfaces: 403 wrong_audience, no challenge, in each format', async () => {
    const r = await rest(memberToken);
    assert.equal(r.status, 403);
    assert.equal(r.headers.get('www-authenticate'), null);
    assert.equal(r.headers.get('content-type'), 'application/problem+json');
    const problem = await r.json();
    assert.equal(problem.code, 'wrong_audience');
    assert.match(problem.detail, /^This needs a token for school operators/);

    const m = await mcp(memberToken, ['coupons_list', {}]);
    assert.equal(m.status, 403);
    assert.equal(m.headers.get('www-authenticate'), null);
    const rpc = await m.json();
    assert.deepEqual(rpc.error.data, { error: 'wrong_audience' });
    assert.equal(rpc.error.message, problem.detail);
  });

  it('an operator token at the member surfaces: 403 wrong_audience, no challenge, in each format', async () => {
    const g = await graphql(operatorToken);
    assert.equal(g.status, 403);
    assert.equal(g.headers.get('www-authenticate'), null);
    const body = await g.json();
    assert.equal(body.errors[0].extensions.code, 'wrong_audience');
    assert.match(body.errors[0].message, /^This needs a token for members/);

    const m = await mcp(operatorToken, ['my_courses', {}]);
    assert.equal(m.status, 403);
    assert.equal(m.headers.get('www-authenticate'), null);
    const rpc = await m.json();
    assert.equal(rpc.error.data.error, 'wrong_audience');
    assert.equal(rpc.error.message, body.errors[0].message);
  });

  it('a missing scope: 403 insufficient_scope with one challenge naming every scope the request needs', async () => {
    const r = await rest(readOnlyToken, '/api/v1/coupons', { method: 'POST', body: '{}' });
    assert.equal(r.status, 403);
    assert.match(r.headers.get('www-authenticate')!, /error="insufficient_scope", .*scope="coupons:write"$/);

    // Two tools in one (legacy batch) body: both scopes, one challenge (RFC 6750 §3.1).
    const m = await mcp(readOnlyToken, ['coupons_create', {}], ['courses_create', {}]);
    assert.equal(m.status, 403);
    assert.match(
      m.headers.get('www-authenticate')!,
      /error="insufficient_scope", .*scope="coupons:write courses:write"$/,
    );
    const rpc = await m.json();
    assert.deepEqual(rpc.error.data, { error: 'insufficient_scope', scope: 'coupons:write courses:write' });
  });

  it('a scope the client may never hold (unreviewed metadata document): 403 with no challenge on REST and MCP', async () => {
    const r = await rest(unreviewedToken, '/api/v1/courses', { method: 'POST', body: '{}' });
    assert.equal(r.status, 403);
    assert.equal(r.headers.get('www-authenticate'), null);
    const problem = await r.json();
    assert.equal(problem.code, 'insufficient_scope');
    assert.match(problem.detail, /may not be granted courses:write/);
    const m = await mcp(unreviewedToken, ['courses_create', {}]);
    assert.equal(m.status, 403);
    assert.equal(m.headers.get('www-authenticate'), null);
    assert.deepEqual((await m.json()).error.data, { error: 'insufficient_scope' });
  });
});
