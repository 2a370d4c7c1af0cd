/**
 * A client that hangs up before sending the body it announced is the client's business: one
 * quiet debug line, never an error with a stack, and the server keeps serving.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { listen, type RunningServer } from '../../src/runtime.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';
import { issueTestToken } from '../support/tokens.ts';

/** Sends a POST announcing 1000 bytes, sends 10, then destroys the socket. */
async function hangUpMidBody(server: RunningServer, path: string, headers: Record<string, string> = {}) {
  const { hostname, port } = new URL(server.url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const head = Object.entries({
    Host: 'lectern.test',
    'Content-Type': 'application/x-www-form-urlencoded',
    'Content-Length': '1000',
    ...headers,
  })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n0123456789`);
  // Let the server start reading the body before the client goes away.
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('a client that hangs up mid-body', () => {
  let t: LoggedTestApp;
  let server: RunningServer;
  let token: string;
  let memberToken: string;
  before(async () => {
    t = await createLoggedTestApp();
    server = await listen(t.app, '127.0.0.1', 0);
    const db = t.runtime.db;
    const school = await createSchool(db, { name: 'Abort School', subdomain: 'abort' });
    const owner = await createUser(db, { email: 'owner@abort.test', name: 'Owner', passwordHash: null });
    await addRoles(db, school.id, owner.id, ['owner']);
    token = (
      await issueTestToken(t, {
        userId: owner.id,
        schoolId: school.id,
        scopes: OPERATOR_SCOPES,
        audience: 'operator',
      })
    ).token;
    const student = await createUser(db, {
      email: 'student@abort.test',
      name: 'Student',
      passwordHash: null,
    });
    await addRoles(db, school.id, student.id, ['student']);
    memberToken = (
      await issueTestToken(t, {
        userId: student.id,
        schoolId: school.id,
        scopes: ['account:read'],
        audience: 'member',
      })
    ).token;
  });
  after(async () => {
    await server.shutdown();
    await t.close();
  });

  for (const [path, headers] of [
    ['/api/oauth/token', {}],
    ['/login', {}],
    ['/api/oauth/register', { 'Content-Type': 'application/json' }],
    ['/api/v1/courses', { 'Content-Type': 'application/json', Authorization: 'Bearer OPERATOR' }],
    ['/account/graphql', { 'Content-Type': 'application/json', Authorization: 'Bearer MEMBER' }],
  ] as const) {
    it(`POST ${path}: one debug line without a stack, no error, and the server keeps serving`, async () => {
      const before = t.logs.length;
      const withToken = Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [
          k,
          v.replace('OPERATOR', token).replace('MEMBER', memberToken),
        ]),
      );
      await hangUpMidBody(server, path, withToken);
      const mine = () => t.logs.slice(before).filter((l) => l.path === path);
      await waitFor(() => mine().length > 0, `a log line for ${path}`);
      // Give a late error line the chance to show up before asserting there is none.
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Issue #16: every request also has its access-log line, and the request id is on both.
      const lines = t.logs.slice(before);
      const access = lines.filter((l) => l.msg === 'request');
      assert.deepEqual(
        access.map((l) => [l.method, l.status]),
        [['POST', 400]],
      );
      assert.deepEqual(
        lines.filter((l) => l.msg !== 'request').map((l) => ({ ...l, time: undefined })),
        [
          {
            level: 20,
            time: undefined,
            service: 'lectern',
            path,
            method: 'POST',
            reason: 'aborted',
            requestId: access[0].requestId,
            msg: 'client closed the connection before its request was read',
          },
        ],
      );
      const health = await fetch(`${server.url}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok' });
    });
  }
});
