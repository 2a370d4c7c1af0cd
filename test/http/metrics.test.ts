/**
 * `/metrics` (Prometheus): behind `Authorization: Bearer <METRICS_TOKEN>` when the token is
 * configured (RFC 6750 §2.1, §3), open otherwise; open in production is allowed but warned about
 * once at start-up.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';

const TOKEN = randomBytes(32).toString('base64');
const PROMETHEUS = 'text/plain; version=0.0.4; charset=utf-8';

describe('/metrics with METRICS_TOKEN set', () => {
  let t: LoggedTestApp;
  before(async () => {
    t = await createLoggedTestApp({ METRICS_TOKEN: TOKEN });
  });
  after(() => t.close());

  it('answers the right bearer token (any case of the scheme, RFC 9110 §11.1)', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'Bearer ']) {
      const res = await t.request('/metrics', { headers: { Authorization: `${scheme} ${TOKEN}` } });
      assert.equal(res.status, 200, scheme);
      assert.equal(res.headers.get('content-type'), PROMETHEUS);
      assert.match(await res.text(), /^# HELP lectern_http_requests_total /m);
    }
  });

  it('without credentials: 401 with WWW-Authenticate: Bearer realm="metrics" (RFC 6750 §3)', async () => {
    const res = await t.request('/metrics');
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="metrics"');
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await res.json(), {
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      code: 'unauthorized',
      detail: 'The metrics need Authorization: Bearer <METRICS_TOKEN>.',
      instance: '/metrics',
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('a wrong token, another scheme or a malformed header: 401, error="invalid_token" when a token was sent', async () => {
    const cases: Array<[string, string]> = [
      [`Bearer ${TOKEN}x`, 'Bearer realm="metrics", error="invalid_token"'],
      [`Bearer ${TOKEN.slice(0, -1)}`, 'Bearer realm="metrics", error="invalid_token"'],
      ['Bearer x', 'Bearer realm="metrics", error="invalid_token"'],
      [`Basic ${Buffer.from(`metrics:${TOKEN}`).toString('base64')}`, 'Bearer realm="metrics"'],
      [TOKEN, 'Bearer realm="metrics"'],
      ['Bearer', 'Bearer realm="metrics"'],
    ];
    for (const [authorization, challenge] of cases) {
      const res = await t.request('/metrics', { headers: { Authorization: authorization } });
      assert.equal(res.status, 401, authorization);
      assert.equal(res.headers.get('www-authenticate'), challenge, authorization);
      assert.equal((await res.json()).code, 'unauthorized');
    }
  });

  it('logs no start-up warning and never logs the token', () => {
    assert.deepEqual(
      t.logs.filter((l) => (l.level as number) >= 40),
      [],
    );
    assert.doesNotMatch(JSON.stringify(t.logs), new RegExp(TOKEN.replace(/[+/]/g, '\\$&')));
  });
});

describe('/metrics without METRICS_TOKEN', () => {
  it('is open in development and test, without a warning', async () => {
    for (const env of ['test', 'development']) {
      const t = await createLoggedTestApp({ NODE_ENV: env });
      try {
        const res = await t.request('/metrics');
        assert.equal(res.status, 200, env);
        assert.equal(res.headers.get('content-type'), PROMETHEUS);
        assert.deepEqual(
          t.logs.filter((l) => (l.level as number) >= 40),
          [],
        );
      } finally {
        await t.close();
      }
    }
  });

  it('is open in production too, and start-up warns once that it is', async () => {
    const t = await createLoggedTestApp({ NODE_ENV: 'production' });
    try {
      for (let i = 0; i < 2; i++) assert.equal((await t.request('/metrics')).status, 200);
      assert.deepEqual(
        t.logs.filter((l) => (l.level as number) >= 40).map((l) => [l.level, l.msg]),
        [[40, '/metrics is open to anyone: set METRICS_TOKEN to require a bearer token']],
      );
    } finally {
      await t.close();
    }
  });
});
