import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { PNG, type Resources, seedResources } from '../support/world-resources.ts';
import { api } from './api.ts';

describe('admin API: resource rules', () => {
  let t: TestApp;
  let s: SchoolFixture;
  let w: Resources;
  let token: string;
  let call: ReturnType<typeof api>;
  before(async () => {
    t = await createTestApp({ UPLOAD_LIMIT_BYTES: '4096' });
    s = await schoolFixture(t);
    w = await seedResources(t, s);
    token = await s.token();
    call = api(t, token);
  });
  after(() => t.close());

  const fields = (r: { body: { errors?: Array<{ field: string }> } }) =>
    (r.body.errors ?? []).map((e) => e.field).sort();

  it('coupons: the kind decides the amount fields; codes are unique case-insensitively', async () => {
    const missing = await call('POST', '/api/v1/coupons', { code: 'FIX', kind: 'fixed' });
    assert.equal(missing.status, 422);
    assert.deepEqual(fields(missing), ['body.amount_off', 'body.currency']);
    const ok = await call('POST', '/api/v1/coupons', {
      code: 'fix10',
      kind: 'fixed',
      amount_off: 1000,
      currency: 'EUR',
      applies_to: [{ type: 'course', id: w.course_id }],
    });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.code, 'FIX10');
    const dup = await call('POST', '/api/v1/coupons', { code: 'Fix10', kind: 'percent', percent_off: 5 });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.code, 'code_taken');
    const foreign = await call('POST', '/api/v1/coupons', {
      code: 'F2',
      kind: 'percent',
      percent_off: 5,
      applies_to: [{ type: 'course', id: 'crs_nope' }],
    });
    assert.equal(foreign.status, 422);
    assert.deepEqual(fields(foreign), ['body.applies_to.0.id']);
    const flip = await call('PATCH', `/api/v1/coupons/${ok.body.id}`, { kind: 'percent' });
    assert.equal(flip.status, 422);
    const inactive = await call('PATCH', `/api/v1/coupons/${ok.body.id}`, { active: false });
    assert.equal(inactive.body.active, false);
    const list = await call('GET', '/api/v1/coupons?active=false');
    assert.deepEqual(
      list.body.data.map((c: { id: string }) => c.id),
      [ok.body.id],
    );
  });

  it('storage: uploads raw or multipart, checks type and content, limits size, serves the bytes back', async () => {
    const up = (body: BodyInit, type: string, q = '?filename=../../evil"name.png') =>
      t.request(`/api/v1/storage/files${q}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': type },
        body,
      });
    const raw = await up(PNG, 'image/png');
    assert.equal(raw.status, 201);
    const file = await raw.json();
    assert.equal(file.filename, 'evilname.png');
    assert.equal(file.size_bytes, PNG.length);
    assert.match(file.sha256, /^[0-9a-f]{64}$/);
    assert.equal(file.url, `${t.config.baseUrl}/api/v1/storage/files/${file.id}/content`);
    const form = new FormData();
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'logo.png');
    const multi = await t.request('/api/v1/storage/files', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    assert.equal(multi.status, 201);
    assert.equal((await multi.json()).filename, 'logo.png');
    const html = await up('<script>alert(1)</script>', 'text/html');
    assert.equal(html.status, 415);
    assert.equal((await html.json()).code, 'unsupported_file_type');
    const lie = await up('not really a png', 'image/png');
    assert.equal(lie.status, 415);
    assert.equal((await lie.json()).code, 'content_type_mismatch');
    const big = await up(new Uint8Array(5000), 'application/pdf');
    assert.equal(big.status, 413);
    const empty = await up(new Uint8Array(0), 'text/plain');
    assert.equal(empty.status, 422);
    const dl = await t.request(file.url, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(dl.status, 200);
    assert.equal(dl.headers.get('content-type'), 'image/png');
    assert.match(dl.headers.get('content-disposition') ?? '', /^attachment; filename="evilname.png"/);
    assert.match(dl.headers.get('content-security-policy') ?? '', /sandbox/);
    assert.deepEqual(Buffer.from(await dl.arrayBuffer()), PNG);
    // A name outside ASCII: an ASCII stand-in in filename, the real name in filename* (RFC 6266
    // §4.3, RFC 8187), never a failed response.
    const named = await up(PNG, 'image/png', `?filename=${encodeURIComponent('Übersicht – 日本 (1).png')}`);
    assert.equal(named.status, 201);
    const namedFile = await named.json();
    assert.equal(namedFile.filename, 'Übersicht – 日本 (1).png');
    const namedDl = await t.request(namedFile.url, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(namedDl.status, 200);
    assert.equal(
      namedDl.headers.get('content-disposition'),
      `attachment; filename="_bersicht _ __ (1).png"; filename*=UTF-8''%C3%9Cbersicht%20%E2%80%93%20%E6%97%A5%E6%9C%AC%20%281%29.png`,
    );
    const other = await schoolFixture(t, 'Other');
    const otherDl = await t.request(file.url, {
      headers: { authorization: `Bearer ${await other.token()}` },
    });
    assert.equal(otherDl.status, 404);
  });

  it('appearance: colours are hex, a logo must be an image of this school', async () => {
    const bad = await call('PATCH', '/api/v1/appearance', { primary_color: 'red', font: 'Comic Sans' });
    assert.deepEqual(fields(bad), ['body.font', 'body.primary_color']);
    const txt = await t.request('/api/v1/storage/files?filename=a.txt', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      body: 'hello',
    });
    const notImage = await call('PATCH', '/api/v1/appearance', { logo_file_id: (await txt.json()).id });
    assert.equal(notImage.status, 422);
    assert.deepEqual(fields(notImage), ['body.logo_file_id']);
    const ok = await call('PATCH', '/api/v1/appearance', {
      logo_file_id: w.file_id,
      accent_color: '#AABBCC',
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.accent_color, '#aabbcc');
    assert.equal(ok.body.logo_url, `${t.config.baseUrl}/api/v1/storage/files/${w.file_id}/content`);
  });

  it('school: a taken subdomain is a 409, locale and time zone are checked', async () => {
    const other = await schoolFixture(t, 'Taken');
    const otherSub = (await api(t, await other.token())('GET', '/api/v1/school')).body.subdomain;
    const taken = await call('PATCH', '/api/v1/school', { subdomain: otherSub });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, 'subdomain_taken');
    const bad = await call('PATCH', '/api/v1/school', {
      timezone: 'Mars/Olympus',
      locale: '??',
      subdomain: '-x-',
      currency: 'euro',
    });
    assert.deepEqual(fields(bad), ['body.currency', 'body.locale', 'body.subdomain', 'body.timezone']);
    const ok = await call('PATCH', '/api/v1/school', {
      name: 'Renamed',
      beta_features: ['mcp_connections'],
      contact_email: 'hi@example.com',
    });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.beta_features, ['mcp_connections']);
  });

  it('pages and posts: slugs are unique, blocks are structured', async () => {
    const dupPage = await call('POST', '/api/v1/pages', { slug: 'page-w', title: 'Dup' });
    assert.equal(dupPage.status, 409);
    assert.equal(dupPage.body.code, 'slug_taken');
    const badBlock = await call('POST', '/api/v1/pages', {
      slug: 'x',
      title: 'X',
      blocks: [{ type: 'html', html: '<script>' }],
    });
    assert.equal(badBlock.status, 422);
    assert.match(fields(badBlock)[0], /^body\.blocks\.0/);
    // A block names this school's courses and files only: another school's are refused like
    // unknown ones, on create and on update.
    const other = await schoolFixture(t, 'Elsewhere');
    const theirs = await api(t, await other.token())('POST', '/api/v1/courses', {
      title: 'Theirs',
      slug: 'theirs',
    });
    assert.equal(theirs.status, 201);
    const foreign = [
      { type: 'course_list', course_ids: [w.course_id, theirs.body.id] },
      { type: 'image', file_id: 'fil_nowhere', alt: 'x' },
    ];
    const refused = await call('POST', '/api/v1/pages', {
      slug: 'foreign',
      title: 'Foreign',
      blocks: foreign,
    });
    assert.equal(refused.status, 422);
    assert.deepEqual(fields(refused), ['body.blocks.0.course_ids.1', 'body.blocks.1.file_id']);
    const own = await call('POST', '/api/v1/pages', {
      slug: 'own-list',
      title: 'Own',
      blocks: [{ type: 'course_list', course_ids: [w.course_id] }],
    });
    assert.equal(own.status, 201);
    const patched = await call('PATCH', `/api/v1/pages/${own.body.id}`, { blocks: foreign.slice(0, 1) });
    assert.equal(patched.status, 422);
    assert.deepEqual(fields(patched), ['body.blocks.0.course_ids.1']);
    const dupPost = await call('POST', '/api/v1/posts', { slug: 'post-w', title: 'Dup' });
    assert.equal(dupPost.body.code, 'slug_taken');
    const post = await call('POST', '/api/v1/posts', { slug: 'fresh', title: 'Fresh', status: 'published' });
    assert.equal(post.body.author_user_id, s.ownerId);
    assert.ok(post.body.published_at);
    assert.equal(
      (await call('PATCH', `/api/v1/posts/${post.body.id}`, { status: 'draft' })).body.published_at,
      null,
    );
  });

  it('students: enroll a member by email, lifetime or expiring access, progress, no double enrollment', async () => {
    const notYet = await call('POST', '/api/v1/enrollments', {
      course_id: w.course_id,
      email: 'newbie@example.com',
    });
    assert.equal(notYet.status, 409);
    assert.equal(notYet.body.code, 'not_a_member');
    await s.person(['student'], 'newbie@example.com');
    const r = await call('POST', '/api/v1/enrollments', {
      course_id: w.course_id,
      email: 'newbie@example.com',
      name: 'Newbie',
      expires_at: '2030-01-01T00:00:00Z',
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.user.email, 'newbie@example.com');
    assert.equal(r.body.lifetime, false);
    assert.equal(r.body.expires_at, '2030-01-01T00:00:00.000Z');
    const member = (await call('GET', '/api/v1/members?search=newbie')).body.data[0];
    assert.deepEqual(member.roles, ['student']);
    const lifetime = await call('PATCH', `/api/v1/enrollments/${r.body.id}`, { expires_at: null });
    assert.equal(lifetime.body.lifetime, true);
    const twice = await call('POST', '/api/v1/enrollments', {
      course_id: w.course_id,
      email: 'newbie@example.com',
    });
    assert.equal(twice.status, 409);
    assert.equal(twice.body.code, 'already_enrolled');
    const both = await call('POST', '/api/v1/enrollments', { course_id: w.course_id });
    assert.deepEqual(fields(both), ['body.user_id']);
    const stranger = await call('POST', '/api/v1/enrollments', {
      course_id: w.course_id,
      user_id: 'usr_not_a_member',
    });
    assert.equal(stranger.status, 404);
    const progress = await call('GET', `/api/v1/enrollments/${w.enrollment_id}/progress`);
    assert.equal(progress.body.lectures.length, 1);
    assert.equal(progress.body.lectures[0].lecture_id, w.lecture_id);
    assert.equal(progress.body.lectures[0].completed, true);
    const active = await call('GET', `/api/v1/enrollments?state=active&course_id=${w.course_id}`);
    assert.equal(active.body.data.length, 2);
    const byEmail = await call('GET', '/api/v1/enrollments?email=NEWBIE@example.com');
    assert.deepEqual(
      byEmail.body.data.map((e: { id: string }) => e.id),
      [r.body.id],
    );
    assert.deepEqual((await call('GET', '/api/v1/enrollments?email=nobody@example.com')).body, {
      data: [],
      next_cursor: null,
    });
    const orders = await call('GET', '/api/v1/orders?email=newbie@example.com');
    assert.deepEqual(orders.body.data, []);
  });

  it('curriculum: reorder needs every id exactly once', async () => {
    const bad = await call('PUT', `/api/v1/sections/${w.section_id}/lectures/order`, {
      lecture_ids: [w.lecture_id],
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(fields(bad), ['body.lecture_ids']);
    const foreignFile = await call('PATCH', `/api/v1/lectures/${w.lecture_id}`, { file_id: 'fil_not_ours' });
    assert.equal(foreignFile.status, 422);
    assert.deepEqual(fields(foreignFile), ['body.file_id']);
  });

  it('subscriptions: cancel at period end, then now; a second cancel is a 409', async () => {
    const atEnd = await call('POST', `/api/v1/subscriptions/${w.subscription_id}/cancel`, {
      at_period_end: true,
    });
    assert.equal(atEnd.status, 200);
    assert.equal(atEnd.body.cancel_at_period_end, true);
    const now = await call('POST', `/api/v1/subscriptions/${w.subscription_id}/cancel`, {});
    assert.equal(now.body.status, 'canceled');
    const again = await call('POST', `/api/v1/subscriptions/${w.subscription_id}/cancel`);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'already_canceled');
  });

  it('forms and comments: filters', async () => {
    const subs = await call('GET', `/api/v1/forms/${w.form_id}/submissions?email=nobody`);
    assert.deepEqual(subs.body.data, []);
    const form = await call('GET', `/api/v1/forms/${w.form_id}`);
    assert.equal(form.body.submissions_count, 1);
    const comments = await call('GET', `/api/v1/comments?target_type=post`);
    assert.deepEqual(comments.body.data, []);
    const onLecture = await call('GET', `/api/v1/comments?course_id=${w.course_id}`);
    assert.equal(onLecture.body.data[0].course_id, w.course_id);
    const wrongForm = await call('GET', `/api/v1/forms/${w.form_id}/submissions/${w.comment_id}`);
    assert.equal(wrongForm.status, 404);
  });

  it('analytics: revenue net of refunds, enrollments, active students and completion by course', async () => {
    const range = `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}`;
    const summary = await call('GET', `/api/v1/analytics/summary?${range}`);
    assert.equal(summary.status, 200);
    assert.deepEqual(summary.body.revenue, [
      { currency: 'EUR', gross_amount: 4410, refunded_amount: 0, net_amount: 4410, orders: 1 },
    ]);
    assert.ok(summary.body.new_enrollments >= 1);
    assert.equal(summary.body.active_students, 1);
    const completion = await call('GET', `/api/v1/analytics/course-completion?${range}`);
    const course = completion.body.courses.find((c: { course_id: string }) => c.course_id === w.course_id);
    assert.ok(course.enrollments >= 1);
    assert.equal(typeof course.completion_rate, 'number');
    const backwards = await call(
      'GET',
      '/api/v1/analytics/revenue?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
    );
    assert.equal(backwards.status, 422);
    assert.deepEqual(fields(backwards), ['query.from']);
    const revenue = await call('GET', `/api/v1/analytics/revenue?${range}`);
    assert.equal(revenue.body.by_day[0].net_amount, 4410);
  });
});
