/**
 * Bodies an attacker (or a broken client) sends to the admin API: malformed multipart uploads and
 * absurdly deep JSON. Each must get a 4xx problem (RFC 9457) with a stable code, never a 500, and
 * the server must keep answering afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { PNG } from '../support/world-resources.ts';
import { api } from './api.ts';

describe('admin API: hostile request bodies', () => {
  let t: TestApp;
  let s: SchoolFixture;
  let token: string;
  let call: ReturnType<typeof api>;
  before(async () => {
    t = await createTestApp();
    s = await schoolFixture(t);
    token = await s.token();
    call = api(t, token);
  });
  after(() => t.close());

  const upload = async (contentType: string, body: BodyInit) => {
    const res = await t.request('/api/v1/storage/files', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      body,
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type'), body: JSON.parse(text) };
  };
  const part = (boundary: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n` +
    `Content-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`;

  const assertMalformed = (
    r: { status: number; type: string | null; body: Record<string, unknown> },
    detail: RegExp,
  ) => {
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.type, 'application/problem+json');
    assert.equal(r.body.code, 'malformed_multipart');
    assert.equal(r.body.title, 'Bad Request');
    assert.equal(r.body.instance, '/api/v1/storage/files');
    assert.match(String(r.body.detail), detail);
  };

  // RFC 7578 §4.1: multipart/form-data requires the boundary parameter.
  it('RFC 7578 §4.1: multipart/form-data without a boundary parameter is a 400 malformed_multipart', async () => {
    assertMalformed(await upload('multipart/form-data', part('xyz')), /boundary/);
    assertMalformed(await upload('multipart/form-data; boundary=', part('xyz')), /boundary/);
  });

  it('RFC 2046 §5.1.1: a body whose parts do not use the declared boundary is a 400 malformed_multipart', async () => {
    assertMalformed(await upload('multipart/form-data; boundary=declared', part('other')), /multipart/);
  });

  it('RFC 2046 §5.1.1: a truncated part (no closing delimiter) is a 400 malformed_multipart', async () => {
    const full = part('cut');
    assertMalformed(
      await upload('multipart/form-data; boundary=cut', full.slice(0, full.indexOf('hello') + 3)),
      /multipart/,
    );
    assertMalformed(await upload('multipart/form-data; boundary=cut', '--cut\r\nContent-Disp'), /multipart/);
  });

  it('a well-formed multipart upload and a raw upload still succeed', async () => {
    const ok = await upload('multipart/form-data; boundary=fine', part('fine'));
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.filename, 'a.txt');
    assert.equal(ok.body.content_type, 'text/plain');
    assert.equal(ok.body.size_bytes, 5);
    const form = new FormData();
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'logo.png');
    const res = await t.request('/api/v1/storage/files', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'upload-1' },
      body: form,
    });
    assert.equal(res.status, 201);
    assert.equal((await res.json()).filename, 'logo.png');
    const raw = await upload('image/png', PNG);
    assert.equal(raw.status, 201);
  });

  it('deeply nested JSON gets the same 422 with or without Idempotency-Key, and the server keeps answering', async () => {
    const n = 100_000;
    const bodies = ['['.repeat(n) + ']'.repeat(n), `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`];
    for (const [i, text] of bodies.entries()) {
      const send = (headers: Record<string, string>) =>
        t.request('/api/v1/courses', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
          body: text,
        });
      const plain = await send({});
      const keyed = await send({ 'idempotency-key': `deep-${i}` });
      assert.equal(plain.status, 422);
      assert.equal(keyed.status, 422);
      assert.equal(keyed.headers.get('content-type'), 'application/problem+json');
      const [a, b] = [await plain.json(), await keyed.json()];
      assert.equal(b.code, 'validation_failed');
      assert.deepEqual(b.errors, a.errors);
    }
    // Nothing was claimed for a request that never ran; the key is free for a valid body.
    const later = await call(
      'POST',
      '/api/v1/courses',
      { slug: 'after-deep', title: 'After' },
      {
        'idempotency-key': 'deep-0',
      },
    );
    assert.equal(later.status, 201);
    assert.equal((await call('GET', `/api/v1/courses/${later.body.id}`)).status, 200);
  });
});
