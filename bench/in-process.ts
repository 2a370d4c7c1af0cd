/**
 * In-process cost per request (µs of CPU, no socket, no load generator): Lectern's app.fetch
 * against a fresh SQLite database with the demo data, for the hot paths of issue #14. Use with
 * `node --cpu-prof bench/in-process.ts [only]` to profile one path; the figures are for finding
 * where time goes, the socket bench (run.ts) says how far a path is from its goal. `mcp` and
 * `mcp-modern` are tools/call my_courses as served (the fast path, src/mcp/fast-path.ts);
 * `mcp-sdk` and `mcp-sdk-modern` the same request through the SDK's handler (fast path off).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { DEMO_MEMBER_APP_ID, seedDemoData } from '../src/domain/demo/demo-seed.ts';
import { openRuntime } from '../src/runtime.ts';
import { QUERY } from './account-scenarios.ts';
import { issueMemberToken, toolsCall } from './mcp-scenarios.ts';

const only = process.argv[2];
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), 'lectern-inproc-'));
const env = {
  DATABASE_URL: `file:${join(dir, 'lectern.sqlite')}`,
  BASE_URL: 'http://127.0.0.1:1',
  LOG_LEVEL: 'warn',
  NODE_ENV: 'development',
};
const config = loadConfig(env);
const runtime = await openRuntime(config, { processMetrics: false });
await seedDemoData(runtime.db);
const token = await issueMemberToken(env, ['openid', 'profile', 'email', 'account:read']);
const appOf = createApp(runtime);
// The same app with the MCP fast path off: every /mcp request through the SDK's handler.
const sdkApp = createApp(runtime, { mcp: { fastPath: false } });
const base = 'http://127.0.0.1:1';
const bearer = { authorization: `Bearer ${token}` };
const json = { ...bearer, 'content-type': 'application/json' };
const mcpHeaders = {
  ...json,
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
const modernHeaders = {
  ...mcpHeaders,
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'my_courses',
};
const mcp = (modern: boolean) => () =>
  new Request(`${base}/mcp`, {
    method: 'POST',
    headers: modern ? modernHeaders : mcpHeaders,
    body: toolsCall(modern),
  });

const paths: Record<string, () => Request> = {
  healthz: () => new Request(`${base}/healthz`),
  userinfo: () => new Request(`${base}/api/oauth/userinfo`, { headers: bearer }),
  introspection: () =>
    new Request(`${base}/api/oauth/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${token}&client_id=${DEMO_MEMBER_APP_ID}`,
    }),
  graphql: () => new Request(`${base}/account/graphql`, { method: 'POST', headers: json, body: QUERY }),
  mcp: mcp(false),
  'mcp-modern': mcp(true),
  'mcp-sdk': mcp(false),
  'mcp-sdk-modern': mcp(true),
};

for (const [name, make] of Object.entries(paths)) {
  if (only && name !== only) continue;
  const app = name.startsWith('mcp-sdk') ? sdkApp : appOf;
  const first = await app.fetch(make());
  if (first.status !== 200) throw new Error(`${name} answered ${first.status}: ${await first.text()}`);
  for (let i = 0; i < 2000; i++) await (await app.fetch(make())).arrayBuffer();
  const start = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) await (await app.fetch(make())).arrayBuffer();
  const used = process.cpuUsage(start);
  console.log(`${name.padEnd(14)} ${((used.user + used.system) / ITERATIONS).toFixed(1)} µs/request`);
}
await runtime.close();
rmSync(dir, { recursive: true, force: true });
