/**
 * The floors: what the libraries Lectern is built on cost by themselves, with nothing of
 * Lectern's own (no token check, no database, no middleware). Same runtime and adapter as the
 * hello-world. A scenario's figure can never beat the floor of the library it runs on, so these
 * rows say how much of a goal the stack leaves to the application.
 *
 * - POST /graphql: graphql-js executing spec §2.5's query against in-memory data, the parsed
 *   document cached (as Lectern caches it).
 * - POST /graphql-jit: the same query compiled once by graphql-jit (as Lectern runs a hot query)
 *   on the same schema with explicit resolvers (graphql-jit calls no function-valued property).
 * - POST /mcp: the official MCP server SDK's handler answering tools/call of one tool that returns
 *   a constant, stateless, as Lectern serves it.
 * - POST /mcp-fast: Lectern's MCP fast path (src/mcp/fast-path.ts) answering tools/call of one
 *   public tool that returns a constant: the MCP layer as Lectern now serves it, without the token
 *   check, the database or the middleware (the "MCP layer alone" goal).
 * - GET /pg (with BENCH_DATABASE_URL): one `select 1` through a pg pool of Lectern's size, the
 *   cost of one PostgreSQL round trip; a path needing n of them cannot beat 1/n of this row.
 */
import { serve } from '@hono/node-server';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { buildSchema, type DocumentNode, execute, type GraphQLObjectType, parse } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { Hono } from 'hono';
import pg from 'pg';
import { z } from 'zod';
import type { AppContext } from '../src/http/context.ts';
import { createToolCatalogue } from '../src/mcp/catalogue.ts';
import { createFastPath } from '../src/mcp/fast-path.ts';
import { defineTool, READ_ONLY } from '../src/mcp/tool.ts';
import { toolInput } from '../src/mcp/tool-input.ts';

const SDL = `
  type Query { viewer: Viewer }
  type Viewer { id: ID! email: String! enrolledCourses(first: Int): EnrollmentConnection! }
  type EnrollmentConnection { nodes: [Enrollment!]! }
  type Enrollment { slug: String! expireDate: String hasLifetimeAccess: Boolean! lastWatchedLecture: LastWatched }
  type LastWatched { lectureId: ID! positionSeconds: Int! }
`;
const schema = buildSchema(SDL);

const viewer = {
  id: 'usr_01m8187bd339egrpx5x805nwj5',
  email: 'student@example.com',
  enrolledCourses: () => ({
    nodes: ['getting-started-with-typescript', 'web-apis-in-practice', 'testing-without-tears'].map(
      (slug) => ({
        slug,
        expireDate: null,
        hasLifetimeAccess: true,
        lastWatchedLecture: { lectureId: 'lec_01m8187bdaywnkh91ee2ak0gch', positionSeconds: 95 },
      }),
    ),
  }),
};

const documents = new Map<string, DocumentNode>();
const app = new Hono();
app.get('/', (c) => c.text('up'));

app.post('/graphql', async (c) => {
  const { query } = JSON.parse(await c.req.text()) as { query: string };
  let document = documents.get(query);
  if (!document) {
    document = parse(query);
    documents.set(query, document);
  }
  const result = await execute({ schema, document, rootValue: { viewer: async () => viewer } });
  return c.body(JSON.stringify(result), 200, { 'Content-Type': 'application/json' });
});

const jitSchema = buildSchema(SDL);
(jitSchema.getQueryType() as GraphQLObjectType).getFields().viewer.resolve = async () => viewer;
(jitSchema.getType('Viewer') as GraphQLObjectType).getFields().enrolledCourses.resolve = (v: typeof viewer) =>
  v.enrolledCourses();
const compiled = new Map<string, CompiledQuery>();

app.post('/graphql-jit', async (c) => {
  const { query } = JSON.parse(await c.req.text()) as { query: string };
  let run = compiled.get(query);
  if (!run) {
    const made = compileQuery(jitSchema, parse(query));
    if (!isCompiledQuery(made)) throw new Error('graphql-jit could not compile the floor query');
    run = made;
    compiled.set(query, run);
  }
  const result = await run.query(undefined, undefined, {});
  return c.body(JSON.stringify(result), 200, { 'Content-Type': 'application/json' });
});

const mcp = createMcpHandler(() => {
  const server = new McpServer({ name: 'floor', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'my_courses',
    { description: 'A constant.', inputSchema: z.object({}), outputSchema: z.object({ count: z.number() }) },
    async () => ({ content: [{ type: 'text', text: '{"count":3}' }], structuredContent: { count: 3 } }),
  );
  return server;
});
app.post('/mcp', (c) => mcp.fetch(c.req.raw));

const constantTool = defineTool({
  name: 'my_courses',
  title: 'A constant',
  description: 'A constant.',
  audience: 'public',
  scope: null,
  input: toolInput({}),
  output: z.object({ count: z.number() }),
  annotations: READ_ONLY,
  run: async () => ({ count: 3 }),
});
// The tool reads nothing of the context; a tool error would log through it.
const floorContext = { logger: console } as unknown as AppContext;
const fastPath = createFastPath(floorContext, createToolCatalogue([constantTool]));
app.post('/mcp-fast', async (c) => {
  const answer = await fastPath.answer(c.req.raw, JSON.parse(await c.req.text()), null);
  return answer ?? c.text('not answered by the fast path', 500);
});

// What every Lectern response pays through the Node adapter, and nothing else: the hello-world plus
// reading one request header (the adapter then builds the request's Headers), a JSON body, and
// four response headers set on the finished response as Lectern's envelope does (the adapter
// then builds the response's Headers and converts them back). The floor of the /healthz row.
app.get('/headers', (c) => {
  const id = c.req.header('x-request-id') ?? crypto.randomUUID();
  const res = c.json({ status: 'ok' }, 200, { 'Cache-Control': 'no-store' });
  res.headers.set('X-Content-Type-Options', 'nosniff');
  res.headers.set('Referrer-Policy', 'no-referrer');
  res.headers.set('X-Request-Id', id);
  return res;
});

if (process.env.BENCH_DATABASE_URL) {
  const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 10 });
  app.get('/pg', async (c) => {
    const { rows } = await pool.query('select 1 as one');
    return c.json(rows[0]);
  });
}

serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.argv[2] ?? 0) }, (info) => {
  console.log(`listening ${info.port}`);
});
