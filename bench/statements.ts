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
import { DEMO_MEMBER_APP_ID, seedDemoData } from '../src/domain/demo/demo-seed.ts';
import { openRuntime } from '../src/runtime.ts';
import { QUERY } from './account-scenarios.ts';
import { issueMemberToken, toolsCall } from './mcp-scenarios.ts';
import { prepareOAuthStore, REDIRECT_URI } from './oauth-scenarios.ts';
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
const base = 'http://127.0.0.1:1';
const env = {
  DATABASE_URL: database.url,
  BASE_URL: base,
  LOG_LEVEL: 'warn',
  NODE_ENV: 'development',
  LECTERN_SECRET: '-1W97cr8pPwPaTMYg3rYW9TzrIi0MGjxPpuubEMx38E',
};
const runtime = await openRuntime(loadConfig(env), { processMetrics: false });
await seedDemoData(runtime.db);
const prepared = await prepareOAuthStore(env, 3, 3);
const token = await issueMemberToken(env, ['openid', 'profile', 'email', 'account:read']);
const app = createApp(runtime);

const form = { 'content-type': 'application/x-www-form-urlencoded' };
const json = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const paths: Record<string, () => Request> = {
  healthz: () => new Request(`${base}/healthz`),
  userinfo: () =>
    new Request(`${base}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } }),
  introspection: () =>
    new Request(`${base}/api/oauth/introspect`, {
      method: 'POST',
      headers: form,
      body: `token=${token}&client_id=${DEMO_MEMBER_APP_ID}`,
    }),
  'refresh rotation': () =>
    new Request(`${base}/api/oauth/token`, {
      method: 'POST',
      headers: form,
      body: `grant_type=refresh_token&client_id=${DEMO_MEMBER_APP_ID}&refresh_token=${prepared.refreshTokens.pop()}`,
    }),
  'code exchange': () =>
    new Request(`${base}/api/oauth/token`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: DEMO_MEMBER_APP_ID,
        code: prepared.codes.pop()!,
        code_verifier: prepared.verifier,
        redirect_uri: REDIRECT_URI,
        resource: prepared.resource,
      }).toString(),
    }),
  'graphql 2.5': () => new Request(`${base}/account/graphql`, { method: 'POST', headers: json, body: QUERY }),
  'mcp my_courses': () =>
    new Request(`${base}/mcp`, {
      method: 'POST',
      headers: {
        ...json,
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: toolsCall(false),
    }),
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
