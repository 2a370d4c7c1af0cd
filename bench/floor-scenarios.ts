import { QUERY } from './account-scenarios.ts';
import { toolsCall } from './mcp-scenarios.ts';
import type { Scenario } from './measure.ts';
import { warmThenMeasure } from './measure.ts';
import { BENCH_DATABASE_URL, startFloor } from './servers.ts';

/**
 * The library floors (floor-server.ts): graphql-js, graphql-jit and the MCP server SDK alone, with no
 * token check, database or middleware, and Lectern's MCP fast path alone on a constant tool. No
 * goals of their own; they bound what the GraphQL and MCP
 * scenarios can reach on this stack.
 */
function floorScenario(
  name: string,
  path: string,
  headers: Record<string, string>,
  body: string,
  goal?: number,
): Scenario {
  return {
    name,
    goal,
    async run() {
      const server = await startFloor();
      try {
        const target = { url: `${server.url}${path}`, method: 'POST' as const, headers, body };
        const probe = await fetch(target.url, target);
        const text = await probe.text();
        if (probe.status !== 200 || text.includes('"errors"') || text.includes('"isError":true')) {
          throw new Error(`probe answered ${probe.status}: ${text.slice(0, 200)}`);
        }
        return { figures: await warmThenMeasure(target) };
      } finally {
        await server.stop();
      }
    },
  };
}

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

const MCP_2025 = { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25' };
const MCP_2026 = {
  ...MCP_HEADERS,
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'my_courses',
};

/** A GET floor of floor-server.ts: the path answered 200, then measured. */
function getFloor(name: string, path: string): Scenario {
  return {
    name,
    async run() {
      const server = await startFloor();
      try {
        const target = { url: `${server.url}${path}` };
        const probe = await fetch(target.url);
        if (probe.status !== 200) throw new Error(`probe answered ${probe.status}`);
        return { figures: await warmThenMeasure(target) };
      } finally {
        await server.stop();
      }
    },
  };
}

/** One PostgreSQL round trip per request (floor-server.ts GET /pg), on PostgreSQL runs only. */
const postgresFloor = getFloor('floor: one PostgreSQL round trip per request (pg, select 1)', '/pg');

export const floorScenarios: Scenario[] = [
  ...(BENCH_DATABASE_URL ? [postgresFloor] : []),
  getFloor('floor: hello-world + a request header + 4 response headers (the /healthz floor)', '/headers'),
  floorScenario(
    'floor: graphql-js alone, spec 2.5 query on in-memory data',
    '/graphql',
    { 'content-type': 'application/json' },
    QUERY,
  ),
  floorScenario(
    'floor: graphql-jit alone, spec 2.5 query on in-memory data',
    '/graphql-jit',
    { 'content-type': 'application/json' },
    QUERY,
  ),
  floorScenario(
    'floor: MCP SDK alone, tools/call of a constant tool (2025-11-25)',
    '/mcp',
    MCP_2025,
    toolsCall(false),
  ),
  floorScenario(
    'floor: MCP SDK alone, tools/call of a constant tool (2026-07-28)',
    '/mcp',
    MCP_2026,
    toolsCall(true),
  ),
  // The "MCP layer alone" goal: Lectern's fast path, which now serves these calls.
  floorScenario(
    'floor: MCP fast path alone, tools/call of a constant tool (2025-11-25)',
    '/mcp-fast',
    MCP_2025,
    toolsCall(false),
    0.5,
  ),
  floorScenario(
    'floor: MCP fast path alone, tools/call of a constant tool (2026-07-28)',
    '/mcp-fast',
    MCP_2026,
    toolsCall(true),
    0.5,
  ),
];
