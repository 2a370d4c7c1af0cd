/**
 * Statements (= round trips) each hot path sends to PostgreSQL per request, counted at the pg
 * client (BEGIN and COMMIT included), in process on a fresh schema with the demo data. The
 * figures behind docs/scaling.md. `BENCH_DATABASE_URL` is required.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { seedDemoData } from '../src/domain/demo/demo-seed.ts';
import { openRuntime } from '../src/runtime.ts';
import { issueMemberToken } from './mcp-scenarios.ts';
import { prepareOAuthStore } from './oauth-scenarios.ts';
import { BASE, hotRequests } from './requests.ts';
import { BENCH_DATABASE_URL, freshDatabase } from './servers.ts';

if (!BENCH_DATABASE_URL)
  throw new Error('statements.ts counts PostgreSQL round trips: set BENCH_DATABASE_URL');
// Patched before any connection exists (database.ts binds each new client's query on connect).
let count = 0;
const query = pg.Client.prototype.query;
// BENCH_SHOW_SQL=1 prints each statement's first words too.
const show = process.env.BENCH_SHOW_SQL === '1';
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  count++;
  if (show) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
    console.log(`    ${String(text).replace(/\s+/g, ' ').slice(0, 110)}`);
  }
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;
const dir = mkdtempSync(join(tmpdir(), 'lectern-statements-'));
const database = await freshDatabase(dir);
const env = {
  DATABASE_URL: database.url,
  BASE_URL: BASE,
  LOG_LEVEL: 'warn',
  NODE_ENV: 'development',
  LECTERN_SECRET: '-1W97cr8pPwPaTMYg3rYW9TzrIi0MGjxPpuubEMx38E',
};
const runtime = await openRuntime(loadConfig(env), { processMetrics: false });
await seedDemoData(runtime.db);
const prepared = await prepareOAuthStore(env, 3, 3);
const token = await issueMemberToken(env, ['openid', 'profile', 'email', 'account:read']);
const app = createApp(runtime);

const paths: Record<string, () => Request> = {
  healthz: hotRequests.healthz,
  userinfo: () => hotRequests.userinfo(token),
  introspection: () => hotRequests.introspection(token),
  'refresh rotation': () => hotRequests.refresh(prepared.refreshTokens.pop()!),
  'code exchange': () => hotRequests.code(prepared),
  'graphql 2.5': () => hotRequests.graphql(token),
  'mcp my_courses': () => hotRequests.mcp(token, false),
};

for (const [name, make] of Object.entries(paths)) {
  await (await app.fetch(make())).arrayBuffer(); // first call: caches filled
  count = 0;
  const res = await app.fetch(make());
  await res.arrayBuffer();
  console.log(`${name.padEnd(16)} ${res.status} ${count} round trips`);
}
await runtime.close();
await database.drop();
rmSync(dir, { recursive: true, force: true });
