import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listen } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

describe('HTTP skeleton', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ BODY_LIMIT_BYTES: '2048' });
  });
  after(() => t.close());

  it('GET /healthz answers 200 while the process is up', async () => {
    const res = await t.request('/healthz');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await res.json(), { status: 'ok' });
  });

  it('GET /readyz answers 200 when the database is reachable', async () => {
    const res = await t.request('/readyz');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok', database: 'ok' });
  });

  it('unknown routes get an RFC 9457 JSON 404 with a request id', async () => {
    const res = await t.request('/no/such/route?x=1');
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const body = await res.json();
    assert.deepEqual(body, {
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      code: 'not_found',
      detail: 'No route for GET /no/such/route.',
      instance: '/no/such/route',
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('keeps a well-formed incoming X-Request-Id', async () => {
    const res = await t.request('/healthz', { headers: { 'X-Request-Id': 'abc-123' } });
    assert.equal(res.headers.get('x-request-id'), 'abc-123');
  });

  it('refuses a body over the limit with 413 problem+json', async () => {
    const res = await t.request('/healthz', { method: 'POST', body: 'x'.repeat(5000) });
    assert.equal(res.status, 413);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal((await res.json()).code, 'payload_too_large');
  });

  it('over a real socket, a declared Content-Length over the limit is refused before reading', async () => {
    const server = await listen(t.app, '127.0.0.1', 0);
    try {
      const big = await fetch(`${server.url}/healthz`, { method: 'POST', body: 'x'.repeat(5000) });
      assert.equal(big.status, 413);
      assert.equal((await big.json()).code, 'payload_too_large');
      const small = await fetch(`${server.url}/no-such`, { method: 'POST', body: 'x'.repeat(100) });
      assert.equal(small.status, 404);
    } finally {
      await server.shutdown();
    }
  });

  it('sets nosniff and a referrer policy on every response', async () => {
    const res = await t.request('/healthz');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  });

  it('exposes Prometheus metrics by route template', async () => {
    await t.request('/healthz');
    const res = await t.request('/metrics');
    assert.equal(res.status, 200);
    assert.match(
      await res.text(),
      /lectern_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/,
    );
  });
});
