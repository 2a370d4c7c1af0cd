/**
 * The request envelope (src/http/envelope.ts) as served over a real socket, where its default
 * headers go on Node's response instead of the web Response (http/default-headers.ts): the same
 * headers, the same request id as the access log and the problem body, a response's own header
 * kept; and what every request passes through before its route.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Hono } from 'hono';
import type { AppEnv } from '../../src/http/context.ts';
import { requestEnvelope } from '../../src/http/envelope.ts';
import { listen, type RunningServer } from '../../src/runtime.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request envelope over a socket', () => {
  let t: LoggedTestApp;
  let server: RunningServer;
  before(async () => {
    t = await createLoggedTestApp({ LOG_LEVEL: 'info' });
    server = await listen(t.app, '127.0.0.1', 0);
  });
  after(async () => {
    await server.shutdown(1000);
    await t.close();
  });

  const accessLine = (requestId: string) =>
    t.logs.find((l) => l.msg === 'request' && l.requestId === requestId);

  it('every kind of response carries nosniff, no-referrer and the request id of its log line, once', async () => {
    // A header sent twice would read "nosniff, nosniff".
    const cases: Array<[string, number]> = [
      ['/healthz', 200],
      ['/.well-known/oauth-authorization-server', 200],
      ['/no/such/route', 404],
      ['/account', 302],
      ['/login', 200],
    ];
    for (const [path, status] of cases) {
      const res = await fetch(`${server.url}${path}`, { redirect: 'manual' });
      await res.arrayBuffer();
      assert.equal(res.status, status, path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer', path);
      const id = res.headers.get('x-request-id') ?? '';
      assert.match(id, UUID, path);
      assert.equal(accessLine(id)?.status, status, path);
    }
  });

  it('the problem body names the request id the response carries', async () => {
    const res = await fetch(`${server.url}/no/such/route`);
    const body = (await res.json()) as { request_id: string };
    assert.equal(body.request_id, res.headers.get('x-request-id'));
  });

  it('keeps a well-formed incoming X-Request-Id and replaces any other', async () => {
    const kept = await fetch(`${server.url}/healthz`, { headers: { 'X-Request-Id': 'abc-123=' } });
    await kept.arrayBuffer();
    assert.equal(kept.headers.get('x-request-id'), 'abc-123=');
    assert.equal(accessLine('abc-123=')?.route, '/healthz');
    for (const foreign of ['abc 123', 'a/b', 'x'.repeat(129)]) {
      const res = await fetch(`${server.url}/healthz`, { headers: { 'X-Request-Id': foreign } });
      await res.arrayBuffer();
      assert.match(res.headers.get('x-request-id') ?? '', UUID, foreign);
    }
  });

  it('every request passes the envelope and the body limit, nothing else, before its route', () => {
    // A feature's `use('*')` would run on every request of every surface: it belongs on its paths.
    for (const path of ['/healthz', '/no/such/route']) {
      const [handlers] = t.app.router.match('GET', path);
      assert.equal(handlers.length, path === '/healthz' ? 3 : 2, path);
    }
  });
});

describe('request envelope: a response that sets its own header keeps it', () => {
  let t: LoggedTestApp;
  let app: Hono<AppEnv>;
  before(async () => {
    t = await createLoggedTestApp();
    app = new Hono<AppEnv>();
    app.use('*', requestEnvelope(t.runtime));
    app.get('/own', (c) =>
      c.text('own', 200, { 'Referrer-Policy': 'same-origin', 'X-Content-Type-Options': 'nosniff' }),
    );
    app.get('/stream', () => new Response(new ReadableStream({ start: (s) => s.close() })));
  });
  after(() => t.close());

  for (const via of ['socket', 'app.request()'] as const) {
    it(`over ${via}`, async () => {
      let server: RunningServer | undefined;
      try {
        let request: (path: string) => Promise<Response>;
        if (via === 'socket') {
          const running = await listen(app, '127.0.0.1', 0);
          server = running;
          request = (path) => fetch(`${running.url}${path}`);
        } else {
          request = async (path) => app.request(path);
        }
        const own = await request('/own');
        await own.arrayBuffer();
        assert.equal(own.headers.get('referrer-policy'), 'same-origin');
        assert.equal(own.headers.get('x-content-type-options'), 'nosniff');
        assert.match(own.headers.get('x-request-id') ?? '', UUID);
        const streamed = await request('/stream');
        await streamed.arrayBuffer();
        assert.equal(streamed.headers.get('referrer-policy'), 'no-referrer');
        assert.equal(streamed.headers.get('x-content-type-options'), 'nosniff');
      } finally {
        await server?.shutdown(1000);
      }
    });
  }
});
