import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { type OperationDefinitionNode, parse } from 'graphql';
import pino from 'pino';
import type { AccountContext } from '../../src/account/context.ts';
import { formatExecutionError } from '../../src/account/errors.ts';
import { clearCompiled, compiledCount, executeOperation, JIT } from '../../src/account/execution.ts';
import { encodeCursor } from '../../src/domain/kernel/pagination.ts';
import { problems } from '../../src/errors/problem-error.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type AccountFixture, seedAccountFixture } from '../support/world-account.ts';
import { gql } from './graphql.ts';

const DEFAULTS = { ...JIT };
const useGraphqlJs = () => {
  clearCompiled();
  JIT.compileAfter = Number.POSITIVE_INFINITY;
};
const useJit = () => {
  clearCompiled();
  JIT.compileAfter = 1;
};

const COURSE_TREE = `query Tree($first: Int, $state: EnrollmentState) {
  viewer {
    ...Me
    enrolledCourses(first: $first, filter: { state: $state }) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges {
        cursor
        node {
          __typename id slug title enrolledAt expireDate hasLifetimeAccess hasAccess progressPercent
          completedAt lastWatchedLecture { lectureId positionSeconds watchedAt }
          course {
            id slug title description imageUrl lectureCount
            sections {
              id title position
              lectures {
                id title type durationSeconds isFreePreview position body videoUrl
                progress { positionSeconds completed completedAt updatedAt }
              }
            }
          }
        }
      }
    }
  }
}
fragment Me on Viewer { __typename id email name roles school { id name currency } }`;

const COMMERCE = `{
  viewer {
    orders(first: 2) {
      totalCount
      nodes {
        id number status subtotal { amount currency } total { amount currency } couponCode createdAt
        items { __typename }
      }
    }
    eventRegistrations(first: 10) {
      nodes { id status registeredAt canceledAt event { id title startsAt endsAt capacity status location } }
    }
    subscriptions {
      edges { cursor node { id status currentPeriodEnd cancelAtPeriodEnd plan { id name interval price { amount currency } } } }
    }
  }
}`;

describe('Account API: graphql-jit answers exactly as graphql-js (execution.ts)', () => {
  let t: TestApp;
  let f: AccountFixture;
  let token: string;
  before(async () => {
    t = await createTestApp();
    f = await seedAccountFixture(t);
    token = await f.token(['openid', 'account:read', 'account:write']);
  });
  after(() => t.close());
  afterEach(() => {
    Object.assign(JIT, DEFAULTS);
    clearCompiled();
  });

  /** Sends one request by graphql-js, then by graphql-jit, and returns both answers. */
  async function both(query: string, variables?: Record<string, unknown>) {
    useGraphqlJs();
    const js = await gql(t, token, query, variables);
    assert.equal(compiledCount(), 0);
    useJit();
    const jit = await gql(t, token, query, variables);
    return { js, jit };
  }

  const requests: Array<[string, string, Record<string, unknown>?]> = [
    [
      'the spec §2.5 query',
      '{ viewer { id email enrolledCourses(first: 10) { nodes { slug expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } } } } }',
    ],
    ['the course tree, fragments, __typename, variables', COURSE_TREE, { first: 5 }],
    ['an enum variable in an input object', COURSE_TREE, { first: 5, state: 'EXPIRED' }],
    ['variables left out (defaults and nulls)', COURSE_TREE],
    ['orders, events, subscriptions', COMMERCE],
    [
      'aliases, @skip and @include',
      `query($yes: Boolean!, $no: Boolean!) {
        me: viewer { a: id b: email @include(if: $yes) c: name @skip(if: $yes)
          one: enrolledCourses(first: 1) @include(if: $no) { totalCount }
          two: enrolledCourses(first: 2) { nodes { slug } totalCount } } }`,
      { yes: true, no: false },
    ],
    [
      'first: 0 (count only)',
      '{ viewer { enrolledCourses(first: 0) { totalCount nodes { slug } pageInfo { hasNextPage } } } }',
    ],
  ];
  for (const [name, query, variables] of requests) {
    it(`${name}: identical data`, async () => {
      const { js, jit } = await both(query, variables);
      assert.equal(compiledCount(), 1, 'compiled by graphql-jit');
      assert.equal(js.status, 200);
      assert.equal(js.body.errors, undefined, JSON.stringify(js.body.errors));
      assert.deepEqual(jit, js);
    });
  }

  it('an execution error (a cursor of another member): partial data, same message, code and path', async () => {
    const query = `query($after: String) {
      viewer { id orders(first: 1, after: $after) { nodes { id } } enrolledCourses(first: 1) { nodes { slug } } } }`;
    const { js, jit } = await both(query, { after: encodeCursor(f.enrollments.inB) });
    assert.equal(compiledCount(), 1);
    assert.equal(js.status, 200);
    assert.equal(js.body.errors?.[0].extensions?.code, 'BAD_USER_INPUT');
    assert.deepEqual(js.body.errors?.[0].path, ['viewer', 'orders', 'nodes']);
    assert.deepEqual(jit, js);
  });

  it('request errors before execution are the same on both paths (nothing is compiled)', async () => {
    const cases: Array<[string, Record<string, unknown>?]> = [
      ['query($n: Int!) { viewer { enrolledCourses(first: $n) { totalCount } } }', { n: 'ten' }],
      ['query($n: Int!) { viewer { enrolledCourses(first: $n) { totalCount } } }'],
      ['{ viewer { enrolledCourses(first: 101) { totalCount } } }'],
      [
        'query($s: EnrollmentState) { viewer { enrolledCourses(filter: { state: $s }) { totalCount } } }',
        { s: 'NOPE' },
      ],
      ['{ viewer { nope } }'],
    ];
    for (const [query, variables] of cases) {
      const { js, jit } = await both(query, variables);
      assert.equal(js.status, 400, query);
      assert.deepEqual(jit, js, query);
      assert.equal(compiledCount(), 0, query);
    }
  });

  it('introspection and mutations stay on graphql-js, with the same answers', async () => {
    const introspection = await both('{ __type(name: "Viewer") { name fields { name } } viewer { id } }');
    assert.equal(introspection.js.status, 200);
    assert.deepEqual(introspection.jit, introspection.js);
    assert.equal(compiledCount(), 0);
    const mutation = `mutation($name: String!) { updateViewerName(name: $name) { name } }`;
    const first = await both(mutation, { name: 'Same Name' });
    assert.deepEqual(first.jit, first.js);
    assert.equal(first.js.body.data?.updateViewerName?.name, 'Same Name');
    assert.equal(compiledCount(), 0);
  });

  it('an operation is compiled on its compileAfter-th run, then served compiled', async () => {
    clearCompiled();
    JIT.compileAfter = 3;
    const query = '{ viewer { id } }';
    const answers = [];
    for (let i = 1; i <= 4; i++) {
      answers.push(await gql(t, token, query));
      assert.equal(compiledCount(), i < 3 ? 0 : 1, `after run ${i}`);
    }
    for (const a of answers) assert.deepEqual(a, answers[0]);
  });

  it('the compiled cache is bounded, and so are compilations per minute', async () => {
    JIT.compileAfter = 1;
    JIT.maxCompiled = 3;
    clearCompiled();
    for (let i = 0; i < 8; i++) {
      const res = await gql(t, token, `{ viewer { id a${i}: email } }`);
      assert.equal(res.status, 200);
      assert.ok(compiledCount() <= 3, `${compiledCount()} held`);
    }
    assert.equal(compiledCount(), 3);
    JIT.maxCompiled = DEFAULTS.maxCompiled;
    JIT.compilesPerMinute = 2;
    clearCompiled();
    for (let i = 0; i < 5; i++) {
      const res = await gql(t, token, `{ viewer { id b${i}: name } }`);
      assert.equal(res.status, 200);
    }
    assert.equal(compiledCount(), 2, 'past the budget, graphql-js runs and nothing is compiled');
  });
});

describe('graphql-jit errors are formatted as graphql-js errors (execution.ts)', () => {
  const logger = pino({ level: 'silent' });
  afterEach(() => {
    Object.assign(JIT, DEFAULTS);
    clearCompiled();
  });

  /** A context whose viewer loader answers `profile` (or fails with it), with these roles. */
  const context = (profile: () => Promise<unknown>, roles: unknown[]): AccountContext =>
    ({
      scope: { schoolId: 's', userId: 'u' },
      principal: { roles },
      loaders: { viewer: profile },
    }) as unknown as AccountContext;

  async function run(query: string, profile: () => Promise<unknown>, roles: unknown[], jit: boolean) {
    clearCompiled();
    JIT.compileAfter = jit ? 1 : Number.POSITIVE_INFINITY;
    const document = parse(query);
    const operation = document.definitions[0] as OperationDefinitionNode;
    const result = await executeOperation({
      document,
      operation,
      variables: {},
      context: context(profile, roles),
    });
    assert.equal(compiledCount(), jit ? 1 : 0);
    return {
      data: result.data,
      errors: result.errors?.map((e) => formatExecutionError(e, logger, 'req-1')),
    };
  }

  const student = ['student'];
  const cases: Array<[string, string, () => Promise<unknown>, unknown[]]> = [
    // email is String!: null propagates to the nullable parent, here up to data itself.
    ['a non-null field resolving to null', '{ viewer { id email } }', async () => ({ email: null }), student],
    [
      'a resolver throwing an Error (masked, with the request id)',
      '{ viewer { id name } }',
      () => Promise.reject(new Error('db down')),
      student,
    ],
    [
      'a resolver throwing a domain problem (its code and detail)',
      '{ viewer { roles name } }',
      () => Promise.reject(problems.notFound('No such member.')),
      student,
    ],
    [
      'a list holding null where the schema says [String!]!',
      '{ viewer { id roles } }',
      async () => ({}),
      [null],
    ],
  ];
  for (const [name, query, profile, roles] of cases) {
    it(name, async () => {
      const js = await run(query, profile, roles, false);
      const jit = await run(query, profile, roles, true);
      assert.ok(js.errors && js.errors.length > 0, JSON.stringify(js));
      assert.deepEqual(jit, js);
    });
  }
});
