/**
 * The test command: runs every test file under test/ with node's test runner on SQLite, and on
 * PostgreSQL beside it when TEST_DATABASE_URL is set. Extra arguments are passed to node --test
 * (e.g. a file list or --test-name-pattern).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareTemplate } from '../test/support/database.ts';

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
// The spec reporter, and after it the run's slowest files, unless the command names its own.
const reporters = args.some((a) => a.startsWith('--test-reporter'))
  ? []
  : [
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${new URL('slowest-files.ts', import.meta.url).pathname}`,
      '--test-reporter-destination=stdout',
    ];
const files = args.some((a) => !a.startsWith('-') && a.endsWith('.ts')) ? [] : findTests('test');
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
process.env.LECTERN_TEST_RUN = run;
// Every test file is a process of its own, and so is every server or command a test spawns: each
// would strip the types of and compile the same few hundred modules again. Node's compile cache
// keeps both (keyed by the file's content), so only the first process of a run pays.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'lectern-compile-cache');
const work = mkdtempSync(join(tmpdir(), 'lectern-run-'));
/** Runs node's test runner on one engine; its output goes to `out` (a file), or to this terminal. */
async function runEngine(engine: string, out?: string): Promise<boolean> {
  const concurrency = process.env.TEST_CONCURRENCY ?? '2';
  // The timeout catches a test that hangs, not a slow one: on two cores at a load average of 23
  // the slowest browser test took 88 s, so it stands well above what load alone does.
  const template = await prepareTemplate(engine === 'postgres' ? 'postgres' : 'sqlite', work);
  const fd = out ? openSync(out, 'w') : undefined;
  const child = spawn(
    process.execPath,
    ['--test', `--test-concurrency=${concurrency}`, '--test-timeout=300000', ...reporters, ...args, ...files],
    {
      stdio: fd === undefined ? 'inherit' : ['ignore', fd, fd],
      env: {
        ...process.env,
        LECTERN_TEST_ENGINE: engine,
        ...(template ? { LECTERN_TEST_TEMPLATE: template } : {}),
      },
    },
  );
  const [code] = (await once(child, 'exit')) as [number | null];
  if (fd !== undefined) closeSync(fd);
  if (engine === 'postgres') await dropRunSchemas(run);
  return code === 0;
}

// With both engines, they run side by side (two cores: one engine alone leaves a core idle while
// its tests wait on browsers, child processes and the database), each into a file of its own,
// and each engine's report is printed whole, one after the other.
let failed = false;
try {
  if (engines.length === 1) {
    console.log(`\n# engine: ${engines[0]}`);
    failed = !(await runEngine(engines[0]));
  } else {
    const outs = engines.map((engine) => join(work, `${engine}.log`));
    const passed = await Promise.all(engines.map((engine, i) => runEngine(engine, outs[i])));
    engines.forEach((engine, i) => {
      console.log(`\n# engine: ${engine}`);
      process.stdout.write(readFileSync(outs[i]));
    });
    failed = passed.includes(false);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
