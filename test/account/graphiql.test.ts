import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildSchema, isObjectType, printSchema } from 'graphql';
import { accountSchema } from '../../src/account/schema.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

describe('GraphiQL and the published SDL (product.md §6)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('GET from a browser serves GraphiQL without a token, loading only same-origin assets', async () => {
    const res = await t.request('/account/graphql', {
      headers: { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'/);
    const page = await res.text();
    assert.match(page, /<title>Lectern Account API · GraphiQL<\/title>/);
    // No external URL anywhere in the page: every src/href is a same-origin path or data:.
    assert.doesNotMatch(page, /https?:\/\//);
    assert.doesNotMatch(page, /\/\/[a-z0-9.-]+\.[a-z]{2,}\//i);
    const refs = [...page.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
    assert.ok(refs.length >= 3, refs.join(' '));
    for (const ref of refs)
      assert.match(ref, /^(\/account\/graphql\/assets\/[a-z.]+\?v=[0-9a-f]{16}|data:,)$/);
    // Every referenced asset is served from here, long-cached for its version.
    for (const ref of refs.filter((r) => r.startsWith('/'))) {
      const asset = await t.request(ref);
      assert.equal(asset.status, 200, ref);
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.ok((await asset.text()).length > 100, ref);
    }
  });

  it('the Monaco workers are served from this origin too', async () => {
    for (const name of ['editor.worker.js', 'json.worker.js', 'graphql.worker.js']) {
      const res = await t.request(`/account/graphql/assets/${name}`);
      assert.equal(res.status, 200, name);
      assert.match(res.headers.get('content-type') ?? '', /^application\/javascript/);
    }
    assert.equal((await t.request('/account/graphql/assets/nope.js')).status, 404);
  });

  it('GET without text/html and without a token is the API: 401 invalid_token', async () => {
    const res = await t.request('/account/graphql?query=%7Bviewer%7Bid%7D%7D', {
      headers: { Accept: 'application/json' },
    });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });

  it('the SDL is published and is exactly the executable schema, every type and field described', async () => {
    const res = await t.request('/account/graphql/schema.graphql');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    const sdl = await res.text();
    const published = buildSchema(sdl);
    assert.equal(printSchema(published), printSchema(accountSchema));
    for (const type of Object.values(published.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Boolean', 'ID', 'Float'].includes(type.name))
        continue;
      assert.ok(type.description, `type ${type.name} has a description`);
      if ('getFields' in type) {
        for (const field of Object.values(type.getFields())) {
          assert.ok(field.description, `${type.name}.${field.name} has a description`);
        }
      }
      if ('getValues' in type) {
        for (const value of type.getValues()) assert.ok(value.description, `${type.name}.${value.name}`);
      }
    }
    // Spec §2.5's fields, with their shapes.
    const viewer = published.getType('Viewer');
    assert.ok(isObjectType(viewer));
    const enrolled = viewer.getFields().enrolledCourses;
    assert.equal(String(enrolled.type), 'EnrolledCourseConnection!');
    assert.ok(enrolled.args.some((a) => a.name === 'first' && String(a.type) === 'Int'));
    const node = published.getType('EnrolledCourse');
    assert.ok(isObjectType(node));
    const f = node.getFields();
    assert.equal(String(f.slug.type), 'String!');
    assert.equal(String(f.expireDate.type), 'DateTime');
    assert.equal(String(f.hasLifetimeAccess.type), 'Boolean!');
    assert.equal(String(f.lastWatchedLecture.type), 'LastWatchedLecture');
  });
});
