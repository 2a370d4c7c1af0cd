/**
 * In-process cost per request (µs of CPU, no socket, no load generator): Lectern's app.fetch
 * against a fresh SQLite database with the demo data, for the hot paths. Use with
 * `node --cpu-prof bench/in-process.ts [only]` to profile one path; the figures are for finding
 * where time goes, the socket bench (run.ts) says how far a path is from its goal. The write
 * paths (`refresh`: rotation, each answer's refresh token presented next; `code`: code exchange
 * with an id_token) run only when named. `mcp` and `mcp-modern` are tools/call my_courses as
 * served (the fast path, src/mcp/fast-path.ts); `mcp-sdk` and `mcp-sdk-modern` the same request
 * through the SDK's handler (fast path off).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { seedDemoData } from '../src/domain/demo/demo-seed.ts';
import { openRuntime } from '../src/runtime.ts';
import { issueMemberToken } from './mcp-scenarios.ts';
import { prepareOAuthStore } from './oauth-scenarios.ts';
import { BASE, hotRequests } from './requests.ts';

const only = process.argv[2];
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const dir = mkdtempSync(join(tmpdir(), 'lectern-inproc-'));
const env = {
  DATABASE_URL: `file:${join(dir, 'lectern.sqlite')}`,
  BASE_URL: BASE,
  LOG_LEVEL: 'warn',
  NODE_ENV: 'development',
};
const config = loadConfig(env);
const runtime = await openRuntime(config, { processMetrics: false });
await seedDemoData(runtime.db);
const token = await issueMemberToken(env, ['openid', 'profile', 'email', 'account:read']);
// Single-use credentials for the write paths: one code per request; refresh tokens are chained
// (each response's new refresh token is the next request's), as the socket bench does.
const writes = only === 'refresh' || only === 'code';
const pool = await prepareOAuthStore(env, only === 'code' ? ITERATIONS + ROUNDS + 2001 : 0, writes ? 1 : 0);
let refreshToken = pool.refreshTokens[0];
const app = createApp(runtime);
// The same app with the MCP fast path off: every /mcp request through the SDK's handler.
const sdkApp = createApp(runtime, { mcp: { fastPath: false } });
// The floor of `healthz`: the baseline's hello-world app (hello-server.ts) through the same fetch.
const hello = new Hono();
hello.get('/', (c) => c.text('Hello, World!'));
const paths: Record<string, () => Request> = {
  'hono hello': () => new Request(`${BASE}/`),
  healthz: hotRequests.healthz,
  userinfo: () => hotRequests.userinfo(token),
  introspection: () => hotRequests.introspection(token),
  graphql: () => hotRequests.graphql(token),
  mcp: () => hotRequests.mcp(token, false),
  'mcp-modern': () => hotRequests.mcp(token, true),
  'mcp-sdk': () => hotRequests.mcp(token, false),
  'mcp-sdk-modern': () => hotRequests.mcp(token, true),
  refresh: () => hotRequests.refresh(refreshToken),
  code: () => hotRequests.code(pool),
};
// Only the write paths need the answer; reading it for the others would add to their figure.
const consume = async (name: string, res: Response) => {
  if (name !== 'refresh') return void (await res.arrayBuffer());
  refreshToken = ((await res.json()) as { refresh_token: string }).refresh_token;
};

for (const [name, make] of Object.entries(paths)) {
  if (only ? name !== only : name === 'refresh' || name === 'code') continue;
  const fetch = name === 'hono hello' ? hello.fetch : name.startsWith('mcp-sdk') ? sdkApp.fetch : app.fetch;
  const first = await fetch(make());
  if (first.status !== 200) throw new Error(`${name} answered ${first.status}: ${await first.text()}`);
  await consume(name, first);
  for (let i = 0; i < 2000; i++) await consume(name, await fetch(make()));
  // BENCH_ROUNDS slices of the iterations, each timed alone: on a shared machine the fastest
  // slice is the figure least disturbed by other processes (the median is printed beside it).
  const perRound: number[] = [];
  const size = Math.ceil(ITERATIONS / ROUNDS);
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < size; i++) await consume(name, await fetch(make()));
    const used = process.cpuUsage(start);
    perRound.push((used.user + used.system) / size);
  }
  perRound.sort((a, b) => a - b);
  const median = perRound[Math.floor(perRound.length / 2)];
  console.log(
    `${name.padEnd(14)} ${perRound[0].toFixed(1)} µs/request (fastest of ${ROUNDS} rounds; median ${median.toFixed(1)})`,
  );
}
await runtime.close();
rmSync(dir, { recursive: true, force: true });
