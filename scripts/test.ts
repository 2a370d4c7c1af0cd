/**
 * The test command: runs every test file under test/ with node's test runner on SQLite, then
 * again on PostgreSQL when TEST_DATABASE_URL is set. Extra arguments are passed to node --test
 * (e.g. a file list or --test-name-pattern).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

const args = process.argv.slice(2);
const files = args.some((a) => a.endsWith('.ts')) ? [] : findTests('test');
const engines = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
if (process.env.LECTERN_TEST_ENGINE) engines.splice(0, engines.length, process.env.LECTERN_TEST_ENGINE);

/** Drops the PostgreSQL schemas a run created (named t_<run>_…; see test/support/database.ts). */
async function dropRunSchemas(run: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(
      'select nspname from pg_namespace where nspname like $1',
      [`t_${run}_%`],
    );
    for (const { nspname } of rows) await client.query(`drop schema if exists "${nspname}" cascade`);
  } finally {
    await client.end();
  }
}

const run = `${process.pid}${Date.now().toString(36)}`;
let failed = false;
for (const engine of engines) {
  console.log(`\n# engine: ${engine}`);
  const concurrency = process.env.TEST_CONCURRENCY ?? '2';
  const result = spawnSync(
    process.execPath,
    ['--test', `--test-concurrency=${concurrency}`, '--test-timeout=120000', ...args, ...files],
    { stdio: 'inherit', env: { ...process.env, LECTERN_TEST_ENGINE: engine, LECTERN_TEST_RUN: run } },
  );
  if (result.status !== 0) failed = true;
  if (engine === 'postgres') await dropRunSchemas(run);
}
process.exit(failed ? 1 : 0);
