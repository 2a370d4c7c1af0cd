import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type AccountFixture, seedAccountFixture } from '../support/world-account.ts';
import { gql } from './graphql.ts';

describe('Account API request errors: coded GraphQL errors, never a 500', () => {
  let t: TestApp;
  let f: AccountFixture;
  let token: string;
  before(async () => {
    t = await createTestApp();
    f = await seedAccountFixture(t);
    token = await f.token(['account:read']);
  });
  after(() => t.close());

  const post = async (body: string, contentType = 'application/json') => {
    const res = await t.request('/account/graphql', {
      method: 'POST',
      headers: { 'Content-Type': contentType, Authorization: `Bearer ${token}` },
      body,
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };

  const badRequest = (message: string) => ({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });

  it('malformed JSON → 400 BAD_REQUEST', async () => {
    const res = await post('{"query": ');
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(res.body, badRequest('The body is not valid JSON.'));
  });

  it('a body that is not an object → 400', async () => {
    for (const body of ['"{ viewer { id } }"', '42', 'null', 'true']) {
      const res = await post(body);
      assert.equal(res.status, 400, body);
      assert.deepEqual(res.body, badRequest('The body must be a JSON object.'));
    }
    const batch = await post('[{"query":"{ viewer { id } }"}]');
    assert.equal(batch.status, 400);
    assert.deepEqual(batch.body, badRequest('Batched requests are not supported: send one JSON object.'));
  });

  it('missing or mistyped query, variables, operationName → 400', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'The request has no "query".'],
      [{ query: 42 }, '"query" must be a string.'],
      [{ query: '{ viewer { id } }', variables: [1] }, '"variables" must be a JSON object.'],
      [{ query: '{ viewer { id } }', variables: 'x' }, '"variables" must be a JSON object.'],
      [{ query: '{ viewer { id } }', operationName: 7 }, '"operationName" must be a string.'],
    ];
    for (const [body, message] of cases) {
      const res = await post(JSON.stringify(body));
      assert.equal(res.status, 400, message);
      assert.deepEqual(res.body, badRequest(message));
    }
  });

  it('a content type other than JSON → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await post('query=%7Bviewer%7Bid%7D%7D', 'application/x-www-form-urlencoded');
    assert.equal(res.status, 415);
    assert.deepEqual(res.body, {
      errors: [
        { message: 'The body must be application/json.', extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } },
      ],
    });
  });

  it('a syntax error → 400 GRAPHQL_PARSE_FAILED with its location', async () => {
    const res = await gql(t, token, '{ viewer { id }');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      errors: [
        {
          message: 'Syntax Error: Expected Name, found <EOF>.',
          locations: [{ line: 1, column: 16 }],
          extensions: { code: 'GRAPHQL_PARSE_FAILED' },
        },
      ],
    });
  });

  it('an unknown field → 400 GRAPHQL_VALIDATION_FAILED', async () => {
    const res = await gql(t, token, '{ viewer { id password } }');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      errors: [
        {
          message: 'Cannot query field "password" on type "Viewer".',
          locations: [{ line: 1, column: 15 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
  });

  it('first above 100 or negative → 400 BAD_USER_INPUT, never a silent clamp (product.md §6)', async () => {
    for (const first of [101, 100000, -1]) {
      const res = await gql(t, token, `{ viewer { enrolledCourses(first: ${first}) { nodes { slug } } } }`);
      assert.equal(res.status, 400, String(first));
      assert.equal(res.body.data, undefined);
      assert.deepEqual(res.body.errors?.[0].extensions, {
        code: 'BAD_USER_INPUT',
        argument: 'first',
        max: 100,
      });
      assert.equal(res.body.errors?.[0].message, `"first" must be between 0 and 100; got ${first}.`);
    }
    const viaVariable = await gql(
      t,
      token,
      'query($n: Int) { viewer { orders(first: $n) { totalCount } } }',
      {
        n: 500,
      },
    );
    assert.equal(viaVariable.status, 400);
    assert.equal(viaVariable.body.errors?.[0].extensions?.code, 'BAD_USER_INPUT');
    const ok = await gql(t, token, '{ viewer { enrolledCourses(first: 100) { totalCount } } }');
    assert.equal(ok.status, 200);
  });

  it('deep nesting → 400 DEPTH_LIMIT_EXCEEDED', async () => {
    let nested = 'name';
    for (let i = 0; i < 20; i++) nested = `ofType { ${nested} }`;
    const res = await gql(t, token, `{ __type(name: "Viewer") { fields { type { ${nested} } } } }`);
    assert.equal(res.status, 400);
    assert.equal(res.body.errors?.[0].extensions?.code, 'DEPTH_LIMIT_EXCEEDED');
  });

  it('GraphiQL’s full introspection query is allowed', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const res = await gql(
      t,
      token,
      getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }),
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.errors, undefined);
    assert.equal(res.body.data.__schema.queryType.name, 'Query');
  });

  it('a query over the cost budget → 400 COST_LIMIT_EXCEEDED', async () => {
    const tree = 'nodes { course { sections { lectures { id progress { positionSeconds } } } } }';
    const aliases = Array.from({ length: 4 }, (_, i) => `a${i}: enrolledCourses(first: 100) { ${tree} }`);
    const res = await gql(t, token, `{ viewer { ${aliases.join(' ')} } }`);
    assert.equal(res.status, 400);
    assert.equal(res.body.errors?.[0].extensions?.code, 'COST_LIMIT_EXCEEDED');
    assert.equal(res.body.errors?.[0].extensions?.limit, 50000);
  });

  it('many aliased connections → COST_LIMIT_EXCEEDED (each runs its own statements)', async () => {
    const aliases = (n: number) =>
      Array.from({ length: n }, (_, i) => `c${i}: orders(first: 1) { totalCount }`).join(' ');
    const ok = await gql(t, token, `{ viewer { ${aliases(90)} } }`);
    assert.equal(ok.status, 200);
    const res = await gql(t, token, `{ viewer { ${aliases(101)} } }`);
    assert.equal(res.status, 400);
    assert.equal(res.body.errors?.[0].extensions?.code, 'COST_LIMIT_EXCEEDED');
  });

  it('an oversized query (over 10 KB) → 400 QUERY_TOO_LARGE', async () => {
    const res = await gql(t, token, `{ viewer { id } } # ${'x'.repeat(10_000)}`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors?.[0].extensions, { code: 'QUERY_TOO_LARGE', limit: 10000 });
  });

  it('too many tokens → 400 GRAPHQL_PARSE_FAILED', async () => {
    const res = await gql(t, token, `{ viewer { ${'id '.repeat(2500)} } }`);
    assert.equal(res.status, 400);
    assert.equal(res.body.errors?.[0].extensions?.code, 'GRAPHQL_PARSE_FAILED');
  });

  it('a body over 64 KB → 413 PAYLOAD_TOO_LARGE, by Content-Length or as read', async () => {
    const body = JSON.stringify({ query: '{ viewer { id } }', variables: { x: 'y'.repeat(70_000) } });
    const read = await post(body);
    assert.equal(read.status, 413);
    assert.equal(read.body.errors[0].extensions.code, 'PAYLOAD_TOO_LARGE');
    const declared = await t.request('/account/graphql', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(body)),
        Authorization: `Bearer ${token}`,
      },
      body,
    });
    assert.equal(declared.status, 413);
    assert.equal((await declared.json()).errors[0].extensions.code, 'PAYLOAD_TOO_LARGE');
  });

  it('wrong variable types → 400 BAD_USER_INPUT', async () => {
    const res = await gql(t, token, 'query($n: Int!) { viewer { orders(first: $n) { totalCount } } }', {
      n: 'ten',
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors?.[0].extensions?.code, 'BAD_USER_INPUT');
    assert.match(res.body.errors?.[0].message ?? '', /Int cannot represent non-integer value/);
  });

  it('several operations need operationName; an unknown one → 400 OPERATION_NOT_FOUND', async () => {
    const doc = 'query A { viewer { id } } query B { viewer { email } }';
    const none = await gql(t, token, doc);
    assert.equal(none.status, 400);
    assert.equal(none.body.errors?.[0].extensions?.code, 'OPERATION_NOT_FOUND');
    const res = await t.request('/account/graphql', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: doc, operationName: 'B' }),
    });
    assert.deepEqual(await res.json(), { data: { viewer: { email: 'sam@example.com' } } });
    const missing = await t.request('/account/graphql', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: doc, operationName: 'C' }),
    });
    assert.equal(missing.status, 400);
  });

  it('mutations over GET → 405 Allow: POST; other methods → 405', async () => {
    const write = await f.token(['account:write']);
    const url = `/account/graphql?query=${encodeURIComponent('mutation { updateViewerName(name: "X") { name } }')}`;
    const res = await t.request(url, {
      headers: { Authorization: `Bearer ${write}`, Accept: 'application/json' },
    });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
    assert.equal((await res.json()).errors[0].extensions.code, 'METHOD_NOT_ALLOWED');
    const put = await t.request('/account/graphql', { method: 'PUT' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, POST');
  });

  it('GET without a query → 400', async () => {
    const res = await t.request('/account/graphql', {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), badRequest('The request has no "query".'));
  });

  it('an unexpected failure inside a resolver is masked: INTERNAL_SERVER_ERROR, no internals', async () => {
    // Point an enrollment at a course row that no longer exists in the member's view.
    const db = t.runtime.db;
    await db
      .updateTable('courses')
      .set({ school_id: f.schoolB })
      .where('id', '=', f.courses.expiring)
      .execute();
    try {
      const res = await gql(t, token, '{ viewer { enrolledCourses { nodes { slug course { id } } } } }');
      assert.equal(res.status, 200);
      const error = res.body.errors?.[0];
      assert.equal(error?.message, 'Unexpected error.');
      assert.equal(error?.extensions?.code, 'INTERNAL_SERVER_ERROR');
      assert.doesNotMatch(JSON.stringify(res.body), /stack|missing|at .*\.ts/);
    } finally {
      await db
        .updateTable('courses')
        .set({ school_id: f.schoolA })
        .where('id', '=', f.courses.expiring)
        .execute();
    }
  });
});
