import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validate } from '@scalar/openapi-parser';
import { adminOperations } from '../../src/admin/catalogue.ts';
import { OPERATOR_SCOPES, RESOURCE_SCOPES } from '../../src/oauth/scopes.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

describe('/openapi.json and /docs', () => {
  let t: TestApp;
  let doc: any;
  before(async () => {
    t = await createTestApp();
    const res = await t.request('/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    doc = await res.json();
  });
  after(() => t.close());

  it('is a valid OpenAPI 3.1 document (validated by @scalar/openapi-parser)', async () => {
    const result = await validate(structuredClone(doc));
    assert.deepEqual(result.errors ?? [], []);
    assert.equal(result.valid, true);
    assert.equal(doc.openapi, '3.1.0');
  });

  it('declares the OAuth 2 authorization code flow of this deployment with every operator scope', () => {
    const flow = doc.components.securitySchemes.oauth2.flows.authorizationCode;
    assert.equal(flow.authorizationUrl, `${t.config.baseUrl}/oauth/authorize`);
    assert.equal(flow.tokenUrl, `${t.config.baseUrl}/api/oauth/token`);
    assert.deepEqual(Object.keys(flow.scopes).sort(), [...OPERATOR_SCOPES].sort());
  });

  it('has one entry per catalogue operation, each naming exactly its one scope', () => {
    const entries = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, any>).map(([method, op]) => ({ path, method, op })),
    );
    assert.equal(entries.length, adminOperations.length);
    for (const op of adminOperations) {
      const entry = doc.paths[op.path]?.[op.method.toLowerCase()];
      assert.ok(entry, `${op.name} is documented`);
      assert.equal(entry.operationId, op.name);
      assert.deepEqual(entry.security, [{ oauth2: [op.scope] }]);
      assert.equal(entry['x-required-scope'], op.scope);
      assert.deepEqual(entry.tags, [op.group]);
      assert.equal(entry.responses['401'].$ref, '#/components/responses/Unauthorized');
      assert.equal(entry.responses['403'].$ref, '#/components/responses/Forbidden');
    }
  });

  it('every example is valid for its operation’s own schemas', () => {
    let checked = 0;
    for (const op of adminOperations) {
      if (op.examples?.request !== undefined) {
        const r = op.input.body!.safeParse(op.examples.request);
        assert.ok(r.success, `${op.name} request example: ${r.error?.message}`);
        checked++;
      }
      if (op.examples?.response !== undefined) {
        const r = op.output!.safeParse(op.examples.response);
        assert.ok(r.success, `${op.name} response example: ${r.error?.message}`);
        assert.deepEqual(r.data, op.examples.response, `${op.name} response example has only schema fields`);
        checked++;
      }
    }
    assert.ok(checked >= 40, `${checked} examples`);
    // Every JSON success response in the document shows an example that its schema accepts.
    for (const op of adminOperations) {
      if (!op.output || op.binary) continue;
      const status = String(op.status ?? 200);
      const example =
        doc.paths[op.path][op.method.toLowerCase()].responses[status].content['application/json'].example;
      assert.notEqual(example, undefined, `${op.name} has a response example`);
      assert.ok(op.output.safeParse(example).success, `${op.name} documented example parses`);
    }
  });

  it('covers every resource group of the scope table with a tag', () => {
    assert.deepEqual(
      doc.tags.map((t: { name: string }) => t.name).sort(),
      Object.keys(RESOURCE_SCOPES).sort(),
    );
  });

  it('gives errors as problem+json and carries examples', () => {
    const problem = doc.components.responses.ValidationFailed.content['application/problem+json'];
    assert.equal(problem.schema.$ref, '#/components/schemas/Problem');
    assert.equal(problem.example.code, 'validation_failed');
    const create = doc.paths['/api/v1/courses'].post;
    assert.equal(create.requestBody.content['application/json'].example.slug, 'intro-to-watercolour');
    assert.equal(create.responses['201'].content['application/json'].example.currency, 'EUR');
    assert.ok(create.parameters.some((p: any) => p.$ref === '#/components/parameters/IdempotencyKey'));
  });

  it('/docs renders Scalar from the installed package under a strict CSP, nothing from a CDN', async () => {
    const res = await t.request('/docs');
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-eval|https?:/);
    const html = await res.text();
    assert.match(html, /<script src="\/docs\/scalar.js"><\/script>/);
    assert.doesNotMatch(html, /https?:\/\//);
    const js = await t.request('/docs/scalar.js');
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type') ?? '', /javascript/);
    assert.ok((await js.text()).length > 100_000);
    const init = await t.request('/docs/init.js');
    assert.match(await init.text(), /"url":"\/openapi.json"/);
  });
});
