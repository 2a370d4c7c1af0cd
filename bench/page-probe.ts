/**
 * Each people's page in process through `app.fetch`: its status, size and the SQL statements it
 * runs (a Kysely plugin counts them), on SQLite or, with BENCH_DATABASE_URL, on PostgreSQL; then
 * BENCH_ITERATIONS (default 0) more loads of each, their CPU time per load (profile them with
 * `--cpu-prof`);
 * BENCH_ONLY (';'-separated parts of the names) picks pages.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { seedDemoData } from '../src/domain/demo/demo-seed.ts';
import { openRuntime } from '../src/runtime.ts';
import { openDatabase } from '../src/store/database.ts';
import { consoleListPath, firstLecturePath, OWNER, pagePaths, STUDENT, signIn } from './page-requests.ts';
import { freshDatabase } from './servers.ts';

const show = process.env.BENCH_SHOW_SQL === '1';
let count = 0;
const counter: KyselyPlugin = {
  transformQuery(args: PluginTransformQueryArgs) {
    if (show) console.log(`    ${args.node.kind}`);
    return args.node;
  },
  async transformResult(args: PluginTransformResultArgs) {
    count++;
    return args.result;
  },
};

const BASE = 'http://127.0.0.1:1';
const dir = mkdtempSync(join(tmpdir(), 'lectern-pages-'));
const database = await freshDatabase(dir);
const config = loadConfig({
  DATABASE_URL: database.url,
  BASE_URL: BASE,
  LOG_LEVEL: 'warn',
  NODE_ENV: 'development',
  LECTERN_SECRET: '-1W97cr8pPwPaTMYg3rYW9TzrIi0MGjxPpuubEMx38E',
});
const db = openDatabase(config.database).withPlugin(counter);
const runtime = await openRuntime(config, { db, processMetrics: false });
await seedDemoData(runtime.db);
const app = createApp(runtime);
const fetcher = async (r: Request) => app.fetch(r);
const student = await signIn(fetcher, BASE, STUDENT);
const owner = await signIn(fetcher, BASE, OWNER);
const player = await firstLecturePath(fetcher, BASE, student);
const consoleList = await consoleListPath(fetcher, BASE, owner);

const pages: [string, string, string | undefined][] = [
  ['course page', pagePaths.course, undefined],
  ['catalogue', pagePaths.catalogue, undefined],
  ['my courses', pagePaths.myCourses, student],
  ['player', player, student],
  ['console list', consoleList, owner],
];
const iterations = Number(process.env.BENCH_ITERATIONS ?? 0);
const only = process.env.BENCH_ONLY?.split(';').filter(Boolean);
for (const [name, path, cookie] of pages) {
  if (only && !only.some((o) => name.includes(o))) continue;
  const request = () => new Request(`${BASE}${path}`, { headers: cookie ? { cookie } : {} });
  await (await app.fetch(request())).arrayBuffer();
  count = 0;
  const res = await app.fetch(request());
  const size = (await res.arrayBuffer()).byteLength;
  const statements = count;
  let perRequest = '';
  if (iterations > 0) {
    // CPU time, not wall clock: on a shared machine the wall clock measures the neighbours.
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) await (await app.fetch(request())).arrayBuffer();
    const used = process.cpuUsage(start);
    perRequest = ` ${((used.user + used.system) / iterations).toFixed(0)} µs CPU`;
  }
  console.log(
    `${name.padEnd(14)} ${res.status} ${String(size).padStart(6)} B ${statements} statements${perRequest}`,
  );
}
await runtime.close();
await database.drop();
rmSync(dir, { recursive: true, force: true });
