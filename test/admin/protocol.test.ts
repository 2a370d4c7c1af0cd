/**
 * The HTTP contract shared by every admin operation, exercised on courses: pagination, input
 * errors (RFC 9457 problems naming the field), conflicts, Idempotency-Key replay and
 * optimistic concurrency (RFC 9110 §13.1.1 If-Match, §13.1.2 If-None-Match).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { api } from './api.ts';

describe('admin API protocol (courses)', () => {
  let t: TestApp;
  let s: SchoolFixture;
  let call: ReturnType<typeof api>;
  let token: string;
  before(async () => {
    t = await createTestApp();
    s = await schoolFixture(t);
    token = await s.token();
    call = api(t, token);
  });
  after(() => t.close());

  const countCourses = async () =>
    (await t.runtime.db.selectFrom('courses').select('id').where('school_id', '=', s.schoolId).execute())
      .length;

  it('create → get → list → update → delete', async () => {
    const created = await call('POST', '/api/v1/courses', {
      slug: 'watercolour',
      title: 'Watercolour',
      price_amount: 4900,
      currency: 'EUR',
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.status, 'draft');
    assert.equal(created.body.price_amount, 4900);
    assert.match(created.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const id = created.body.id;
    const got = await call('GET', `/api/v1/courses/${id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, created.body);
    assert.equal(got.headers.get('etag'), created.headers.get('etag'));
    assert.equal(got.headers.get('cache-control'), 'no-store');
    const listed = await call('GET', '/api/v1/courses?search=WATER');
    assert.deepEqual(
      listed.body.data.map((c: { id: string }) => c.id),
      [id],
    );
    const updated = await call('PATCH', `/api/v1/courses/${id}`, {
      status: 'published',
      title: 'Watercolour basics',
    });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.title, 'Watercolour basics');
    assert.ok(updated.body.published_at);
    assert.equal((await call('DELETE', `/api/v1/courses/${id}`)).status, 204);
    assert.equal((await call('GET', `/api/v1/courses/${id}`)).status, 404);
    assert.equal((await call('DELETE', `/api/v1/courses/${id}`)).status, 404);
  });

  it('paginates with limit and cursor across pages, and filters by status', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await call('POST', '/api/v1/courses', {
        slug: `page-${i}`,
        title: `Paged ${i}`,
        status: i % 2 ? 'published' : 'draft',
      });
      ids.push(r.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await call('GET', `/api/v1/courses?search=paged&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(r.status, 200);
      assert.ok(r.body.data.length <= 2);
      seen.push(...r.body.data.map((c: { id: string }) => c.id));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, ids);
    const published = await call('GET', '/api/v1/courses?search=paged&status=published');
    assert.deepEqual(
      published.body.data.map((c: { id: string }) => c.id),
      [ids[1], ids[3]],
    );
  });

  it('limit above 100 is a 422 naming query.limit, never a clamp; a foreign cursor is a 400', async () => {
    const r = await call('GET', '/api/v1/courses?limit=101');
    assert.equal(r.status, 422);
    assert.equal(r.headers.get('content-type'), 'application/problem+json');
    assert.equal(r.body.code, 'validation_failed');
    assert.deepEqual(
      r.body.errors.map((e: { field: string }) => e.field),
      ['query.limit'],
    );
    assert.equal((await call('GET', '/api/v1/courses?limit=0')).status, 422);
    const bad = await call('GET', '/api/v1/courses?cursor=not-a-cursor');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'invalid_cursor');
    assert.equal((await call('GET', '/api/v1/courses?stauts=draft')).body.errors[0].field, 'query.stauts');
  });

  it('validation failures name every failing field', async () => {
    const r = await call('POST', '/api/v1/courses', {
      slug: 'Not A Slug',
      title: '',
      price_amount: -1,
      colour: 'red',
    });
    assert.equal(r.status, 422);
    assert.equal(r.body.code, 'validation_failed');
    const fields = r.body.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['body.colour', 'body.price_amount', 'body.slug', 'body.title']);
    const lecturer = await call('POST', '/api/v1/courses', {
      slug: 'ok-slug',
      title: 'Ok',
      lecturer_ids: ['lct_nope'],
    });
    assert.equal(lecturer.status, 422);
    assert.equal(lecturer.body.errors[0].field, 'body.lecturer_ids');
  });

  it('a duplicate slug is a 409 slug_taken, on create and on update', async () => {
    const a = await call('POST', '/api/v1/courses', { slug: 'dup', title: 'A' });
    assert.equal(a.status, 201);
    const b = await call('POST', '/api/v1/courses', { slug: 'dup', title: 'B' });
    assert.equal(b.status, 409);
    assert.equal(b.body.code, 'slug_taken');
    const c = await call('POST', '/api/v1/courses', { slug: 'dup-2', title: 'C' });
    const moved = await call('PATCH', `/api/v1/courses/${c.body.id}`, { slug: 'dup' });
    assert.equal(moved.status, 409);
    assert.equal(moved.body.code, 'slug_taken');
  });

  it('JSON only: another media type is 415, malformed JSON is 400, never a 500', async () => {
    const form = await t.request('/api/v1/courses', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'slug=x&title=y',
    });
    assert.equal(form.status, 415);
    assert.equal((await form.json()).code, 'unsupported_media_type');
    const broken = await t.request('/api/v1/courses', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"slug": ',
    });
    assert.equal(broken.status, 400);
    assert.equal((await broken.json()).code, 'malformed_json');
    const array = await call('POST', '/api/v1/courses', [1, 2]);
    assert.equal(array.status, 422);
    assert.equal(array.body.errors[0].field, 'body');
  });

  it('Idempotency-Key replays the first success once executed, and refuses reuse for another request', async () => {
    const before = await countCourses();
    const body = { slug: 'idem', title: 'Idempotent' };
    const headers = { 'idempotency-key': 'key-123' };
    const first = await call('POST', '/api/v1/courses', body, headers);
    assert.equal(first.status, 201);
    const second = await call('POST', '/api/v1/courses', body, headers);
    assert.equal(second.status, 201);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(second.headers.get('etag'), first.headers.get('etag'));
    assert.equal(await countCourses(), before + 1);
    const reused = await call('POST', '/api/v1/courses', { slug: 'idem-other', title: 'Other' }, headers);
    assert.equal(reused.status, 422);
    assert.equal(reused.body.code, 'idempotency_key_reused');
    const elsewhere = await call(
      'POST',
      '/api/v1/coupons',
      { code: 'IDEM', kind: 'percent', percent_off: 5 },
      headers,
    );
    assert.equal(elsewhere.body.code, 'idempotency_key_reused');
    // Keys belong to the client and school: another client may use the same key freely.
    const otherClient = api(
      t,
      (
        await (
          await import('../support/tokens.ts')
        ).issueTestToken(t, {
          userId: s.ownerId,
          schoolId: s.schoolId,
          scopes: ['courses:write'],
          audience: 'operator',
          clientId: 'another-client',
        })
      ).token,
    );
    assert.equal(
      (await otherClient('POST', '/api/v1/courses', { slug: 'idem-b', title: 'B' }, headers)).status,
      201,
    );
    assert.equal((await call('POST', '/api/v1/courses', body, { 'idempotency-key': '' })).status, 400);
  });

  it('a key is forgotten after 24 hours', async () => {
    const headers = { 'idempotency-key': 'old-key' };
    assert.equal(
      (await call('POST', '/api/v1/courses', { slug: 'old-1', title: 'Old' }, headers)).status,
      201,
    );
    // A day and an hour later (with a token of that time: the first one has expired by then).
    const fresh = await t.clock.travel(25 * 3600_000, async () =>
      api(t, await s.token())('POST', '/api/v1/courses', { slug: 'old-2', title: 'New' }, headers),
    );
    assert.equal(fresh.status, 201);
    assert.equal(fresh.headers.get('idempotent-replayed'), null);
  });

  it('concurrent requests with one Idempotency-Key execute once', async () => {
    const before = await countCourses();
    const headers = { 'idempotency-key': 'race-1' };
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        call('POST', '/api/v1/courses', { slug: 'race', title: 'Race' }, headers),
      ),
    );
    for (const r of results)
      assert.ok(
        r.status === 201 || (r.status === 409 && r.body.code === 'idempotency_key_in_progress'),
        JSON.stringify(r.body),
      );
    const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.id));
    assert.equal(ids.size, 1);
    assert.equal(await countCourses(), before + 1);
  });

  it('a failed request is not remembered: its retry with the same key runs again', async () => {
    const headers = { 'idempotency-key': 'retry-after-conflict' };
    await call('POST', '/api/v1/courses', { slug: 'taken', title: 'First' });
    const failed = await call('POST', '/api/v1/courses', { slug: 'taken', title: 'Second' }, headers);
    assert.equal(failed.status, 409);
    const renamed = await call(
      'PATCH',
      `/api/v1/courses/${(await call('GET', '/api/v1/courses?search=First')).body.data[0].id}`,
      { slug: 'freed' },
    );
    assert.equal(renamed.status, 200);
    const retried = await call('POST', '/api/v1/courses', { slug: 'taken', title: 'Second' }, headers);
    assert.equal(retried.status, 201);
  });

  it('ETag/If-Match: a stale tag is a 412 and changes nothing; the current tag succeeds; If-None-Match gives 304', async () => {
    const c = await call('POST', '/api/v1/courses', { slug: 'etag', title: 'Tagged' });
    const tag = c.headers.get('etag')!;
    const notModified = await t.request(`/api/v1/courses/${c.body.id}`, {
      headers: { authorization: `Bearer ${token}`, 'if-none-match': tag },
    });
    assert.equal(notModified.status, 304);
    const ok = await call(
      'PATCH',
      `/api/v1/courses/${c.body.id}`,
      { title: 'Tagged 2' },
      { 'if-match': tag },
    );
    assert.equal(ok.status, 200);
    const newTag = ok.headers.get('etag')!;
    assert.notEqual(newTag, tag);
    const stale = await call(
      'PATCH',
      `/api/v1/courses/${c.body.id}`,
      { title: 'Lost update' },
      { 'if-match': tag },
    );
    assert.equal(stale.status, 412);
    assert.equal(stale.body.code, 'precondition_failed');
    assert.equal((await call('GET', `/api/v1/courses/${c.body.id}`)).body.title, 'Tagged 2');
    assert.equal(
      (await call('PATCH', `/api/v1/courses/${c.body.id}`, { title: 'T3' }, { 'if-match': `W/${newTag}` }))
        .status,
      412,
    );
    assert.equal(
      (await call('PATCH', `/api/v1/courses/${c.body.id}`, { title: 'T3' }, { 'if-match': `"x", ${newTag}` }))
        .status,
      200,
    );
    assert.equal(
      (await call('PATCH', '/api/v1/courses/crs_missing', { title: 'T' }, { 'if-match': '*' })).status,
      404,
    );
  });

  it('a repeated query parameter is a 422, not a guess', async () => {
    const r = await call('GET', '/api/v1/courses?limit=10&limit=500');
    assert.equal(r.status, 422);
    assert.deepEqual(r.body.errors, [{ field: 'query.limit', message: 'must be given once' }]);
  });

  it('answers CORS preflights before authentication and exposes the headers clients need', async () => {
    const pre = await t.request('/api/v1/courses', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://tool.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, idempotency-key',
      },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), '*');
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /Idempotency-Key/);
    const get = await t.request('/api/v1/courses', {
      headers: { origin: 'https://tool.example', authorization: `Bearer ${token}` },
    });
    assert.match(get.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
  });

  it('an expired or revoked token is a 401 invalid_token with a challenge', async () => {
    const { issueTestToken } = await import('../support/tokens.ts');
    const expired = await issueTestToken(t, {
      userId: s.ownerId,
      schoolId: s.schoolId,
      scopes: ['courses:read'],
      audience: 'operator',
      expiresInSeconds: -5,
    });
    const r = await api(t, expired.token)('GET', '/api/v1/courses');
    assert.equal(r.status, 401);
    assert.match(r.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });
});

describe('admin API protocol: concurrent conditional updates', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('of several PATCHes with the same If-Match, exactly one wins; the others get 412', async () => {
    const s = await schoolFixture(t);
    const call = api(t, await s.token());
    const c = await call('POST', '/api/v1/courses', { slug: 'race-etag', title: 'Race' });
    const tag = c.headers.get('etag')!;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call('PATCH', `/api/v1/courses/${c.body.id}`, { title: `Writer ${i}` }, { 'if-match': tag }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 412, 412, 412, 412, 412]);
    const winner = results.find((r) => r.status === 200)!;
    assert.equal((await call('GET', `/api/v1/courses/${c.body.id}`)).body.title, winner.body.title);
  });
});
