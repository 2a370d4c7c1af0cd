import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import type { Browser } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { locationOf, signedIn, submit } from '../web/pages-support.ts';
import { api } from './api.ts';

describe('slugs made from titles (courses, posts, pages)', () => {
  let t: TestApp;
  let world: World;
  let call: ReturnType<typeof api>;
  let otherCall: ReturnType<typeof api>;

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    call = api(t, await world.demo.token());
    otherCall = api(t, await world.other.token());
  });
  after(() => t.close());

  const createCourse = async (body: Record<string, unknown>, via = call) => {
    const res = await via('POST', '/api/v1/courses', body);
    return { status: res.status, slug: res.body?.slug as string, body: res.body };
  };

  it('a course without a slug gets one from its title: lower-case ASCII, accents transliterated', async () => {
    const made = await createCourse({ title: '  Crème Brûlée: Straße & Œuvre — Ñandú 101!  ' });
    assert.equal(made.status, 201);
    assert.equal(made.slug, 'creme-brulee-strasse-oeuvre-nandu-101');
  });

  it('the same title again gets -2, then -3; another school’s slugs do not count', async () => {
    assert.equal((await createCourse({ title: 'Watercolour Basics' })).slug, 'watercolour-basics');
    assert.equal((await createCourse({ title: 'Watercolour basics' })).slug, 'watercolour-basics-2');
    assert.equal((await createCourse({ title: 'WATERCOLOUR BASICS' })).slug, 'watercolour-basics-3');
    assert.equal((await createCourse({ title: 'Watercolour Basics' }, otherCall)).slug, 'watercolour-basics');
  });

  it('a title with no letters or digits in ASCII falls back to the noun', async () => {
    assert.equal((await createCourse({ title: '日本語の講座' })).slug, 'course');
    assert.equal((await createCourse({ title: '!!! ???' })).slug, 'course-2');
  });

  it('a long title is cut on the slug’s limit, leaving room for the suffix', async () => {
    const title = `${'word '.repeat(30)}end`;
    const one = await createCourse({ title });
    const two = await createCourse({ title });
    assert.equal(one.status, 201);
    assert.ok(one.slug.length <= 94 && !one.slug.endsWith('-'), one.slug);
    assert.equal(two.slug, `${one.slug}-2`);
  });

  it('concurrent creates of one title all succeed, each under its own slug (the unique index decides)', async () => {
    const made = await Promise.all(Array.from({ length: 6 }, () => createCourse({ title: 'Raced Title' })));
    assert.deepEqual(
      made.map((m) => m.status),
      [201, 201, 201, 201, 201, 201],
    );
    assert.deepEqual(made.map((m) => m.slug).sort(), [
      'raced-title',
      'raced-title-2',
      'raced-title-3',
      'raced-title-4',
      'raced-title-5',
      'raced-title-6',
    ]);
  });

  it('an explicit slug is kept as given, and a taken one is still refused with 409 slug_taken', async () => {
    const mine = await createCourse({ title: 'Anything', slug: 'my-own-slug' });
    assert.equal(mine.status, 201);
    assert.equal(mine.slug, 'my-own-slug');
    const taken = await createCourse({ title: 'Another', slug: 'my-own-slug' });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, 'slug_taken');
    assert.equal(taken.body.detail, 'Another course of this school already uses the slug "my-own-slug".');
    const bad = await createCourse({ title: 'Bad', slug: 'Not A Slug' });
    assert.equal(bad.status, 422);
  });

  it('a made slug is editable afterwards', async () => {
    const made = await createCourse({ title: 'Rename Me' });
    const res = await call('PATCH', `/api/v1/courses/${made.body.id}`, { slug: 'renamed' });
    assert.equal(res.status, 200);
    assert.equal(res.body.slug, 'renamed');
  });

  it('posts and pages get theirs the same way', async () => {
    const post = await call('POST', '/api/v1/posts', { title: 'Spring Cohort: Welcome!' });
    assert.equal(post.status, 201);
    assert.equal(post.body.slug, 'spring-cohort-welcome');
    const again = await call('POST', '/api/v1/posts', { title: 'Spring cohort — welcome' });
    assert.equal(again.body.slug, 'spring-cohort-welcome-2');
    const page = await call('POST', '/api/v1/pages', { title: 'Über uns' });
    assert.equal(page.status, 201);
    assert.equal(page.body.slug, 'uber-uns');
    const symbols = await call('POST', '/api/v1/pages', { title: '★★★' });
    assert.equal(symbols.body.slug, 'page');
    const taken = await call('POST', '/api/v1/posts', { title: 'X', slug: 'spring-cohort-welcome' });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, 'slug_taken');
  });

  it('the MCP tool courses_create takes a title alone and answers the made slug', async () => {
    const res = await t.request('/mcp', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await world.demo.token()}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'courses_create', arguments: { title: 'Made by an Agent' } },
      }),
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    const json = JSON.parse(text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}'));
    assert.equal(json.result.isError, undefined, text);
    assert.equal(json.result.structuredContent.slug, 'made-by-an-agent');
  });

  it('the OpenAPI document marks slug optional on create and its operations say how it is made', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document, read field by field
    const doc = (await (await t.request('/openapi.json')).json()) as any;
    for (const path of ['/api/v1/courses', '/api/v1/posts', '/api/v1/pages']) {
      const schema = doc.paths[path].post.requestBody.content['application/json'].schema;
      const body = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
      assert.ok(!(body.required ?? []).includes('slug'), `${path}: slug required`);
      assert.ok(body.required.includes('title'), `${path}: title not required`);
      assert.match(doc.paths[path].post.description, /Without a `slug` one is made from the title/);
    }
  });

  describe('the console’s New course form', () => {
    let owner: Browser;
    before(async () => {
      owner = await signedIn(t, 'owner@example.com');
    });

    it('shows the slug as optional and makes the course from its title alone', async () => {
      const demo = world.demo.schoolId;
      const form = await (await owner.request(`/admin/${demo}/courses/new`)).text();
      const slugInput = /<input[^>]*name="slug"[^>]*>/.exec(form)?.[0];
      assert.ok(slugInput, 'no slug input');
      assert.doesNotMatch(slugInput, /\brequired\b/);
      const res = await submit(owner, `/admin/${demo}/courses/new`, `/admin/${demo}/courses`, {
        _key: 'slug-from-title',
        title: 'Pottery for Beginners',
        slug: '',
        price_amount: '',
      });
      assert.equal(res.status, 303);
      const id = /\/courses\/(crs_[0-9a-z]{26})\?done=created$/.exec(locationOf(res))?.[1];
      assert.ok(id, locationOf(res));
      const course = await call('GET', `/api/v1/courses/${id}`);
      assert.equal(course.body.slug, 'pottery-for-beginners');
      assert.equal(course.body.title, 'Pottery for Beginners');
    });
  });
});
