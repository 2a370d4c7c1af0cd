/**
 * The schema is public (it is published at /account/graphql/schema.graphql), so introspection
 * needs no token: GraphiQL and other tools open with the schema loaded before anyone signs in.
 * Every request for data still needs a member token (401 invalid_token without one).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getIntrospectionQuery } from 'graphql';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type AccountFixture, seedAccountFixture } from '../support/world-account.ts';
import { gql } from './graphql.ts';

const NO_TOKEN =
  'Bearer resource_metadata="http://lectern.test/.well-known/oauth-protected-resource/account/graphql", error="invalid_token", error_description="No access token was presented.", scope="openid account:read"';

describe('Account API introspection without a token', () => {
  let t: TestApp;
  let f: AccountFixture;
  before(async () => {
    t = await createTestApp();
    f = await seedAccountFixture(t);
  });
  after(() => t.close());

  it("GraphiQL's full introspection query answers 200 with the schema and no challenge", async () => {
    const res = await gql(
      t,
      null,
      getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body.errors));
    assert.equal(res.headers.get('www-authenticate'), null);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.body.errors, undefined);
    assert.equal(res.body.data.__schema.queryType.name, 'Query');
    const query = res.body.data.__schema.types.find((x: { name: string }) => x.name === 'Query');
    assert.ok(query.fields.some((x: { name: string }) => x.name === 'viewer'));
  });

  it('__type and __typename alone, by POST and by GET, need no token either', async () => {
    const type = await gql(t, null, '{ __type(name: "Viewer") { name fields { name } } }');
    assert.equal(type.status, 200);
    assert.equal(type.body.data.__type.name, 'Viewer');
    const probe = await gql(t, null, 'query Probe { __typename }');
    assert.equal(probe.status, 200);
    assert.deepEqual(probe.body, { data: { __typename: 'Query' } });
    const res = await t.request(
      `/account/graphql?${new URLSearchParams({ query: '{ __schema { queryType { name } } }' })}`,
      {
        headers: { accept: 'application/json' },
      },
    );
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { data: { __schema: { queryType: { name: 'Query' } } } });
  });

  it('anything that reads data is still 401 invalid_token without a token (spec §5.6)', async () => {
    for (const query of [
      '{ viewer { email } }',
      '{ __schema { queryType { name } } viewer { email } }',
      'query { ...V } fragment V on Query { viewer { id } }',
      'query { ... on Query { __typename viewer { id } } }',
      'mutation { __typename }',
      'mutation { updateViewerName(name: "X") { name } }',
      // Malformed or invalid documents are not introspection: the missing token is what is said.
      '{ __schema { nope } }',
      '{ __schema',
    ]) {
      const res = await gql(t, null, query);
      assert.equal(res.status, 401, query);
      assert.equal(res.headers.get('www-authenticate'), NO_TOKEN, query);
      assert.deepEqual(res.body, {
        errors: [{ message: 'No access token was presented.', extensions: { code: 'invalid_token' } }],
      });
    }
  });

  it('a presented token must be valid even for introspection: a bad one is 401, a member token works', async () => {
    const bad = await gql(t, 'not-a-token', '{ __typename }');
    assert.equal(bad.status, 401);
    assert.equal(bad.body.errors?.[0].extensions?.code, 'invalid_token');
    const good = await gql(t, await f.token(['account:read']), '{ __typename }');
    assert.equal(good.status, 200);
    assert.deepEqual(good.body, { data: { __typename: 'Query' } });
  });
});
