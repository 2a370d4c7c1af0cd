import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type DatabaseOptions, migrateToLatest, openDatabase } from '../../src/store/database.ts';

/** Which engine this test process runs on: set by scripts/test.ts (default sqlite). */
export const ENGINE: 'sqlite' | 'postgres' =
  process.env.LECTERN_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/** A fresh, empty database for one test: its own SQLite file, or its own PostgreSQL schema. */
export interface TestDatabase {
  readonly options: DatabaseOptions;
  /** Environment to hand loadConfig so a spawned server uses the same database. */
  readonly env: Record<string, string>;
  readonly dir: string;
  drop(): Promise<void>;
}

/** A schema name of this run (scripts/test.ts drops every `t_<run>_…` schema after it). */
function schemaName(): string {
  return `t_${process.env.LECTERN_TEST_RUN ?? process.pid}_${randomBytes(6).toString('hex')}`;
}

export async function createTestDatabase(engine = ENGINE): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-test-'));
  if (engine === 'sqlite') {
    const sqlitePath = join(dir, 'lectern.sqlite');
    return {
      options: { engine: 'sqlite', url: `file:${sqlitePath}`, sqlitePath },
      env: { DATABASE_URL: `file:${sqlitePath}` },
      dir,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const url = testDatabaseUrl();
  const schema = schemaName();
  await adminQuery(url, `create schema ${schema}`);
  // A test's commits need not wait for the disk: nothing in a test survives a crash of the
  // server, and every test commits many times (the demo seed alone hundreds). The connection
  // string's options win over the pool's (pg's ConnectionParameters), so they name the schema too.
  const withSchema = new URL(url);
  withSchema.searchParams.set('options', `-c search_path=${schema} -c synchronous_commit=off`);
  return {
    options: { engine: 'postgres', url: withSchema.toString(), schema },
    env: { DATABASE_URL: withSchema.toString() },
    dir,
    // Dropped as the test closes, beside the other workers' tests: the migrator's introspection
    // reads only its own schema (src/store/scoped-introspector.ts), so a drop fails no one else,
    // and a run no longer ends dropping hundreds of schemas one after another. What a crashed
    // test leaves, scripts/test.ts drops after the run (the `t_<run>_` prefix).
    drop: async () => {
      await adminQuery(url, `drop schema if exists ${schema} cascade`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A database already at the latest migration, for an app: a copy of the run's template when
 * scripts/test.ts made one (migrating each app's database anew costs more than most tests), else
 * a fresh one that the app's start-up migrates. The migrations themselves are tested from empty
 * (test/store/migrations.test.ts, createTestDatabase).
 */
export async function createMigratedTestDatabase(): Promise<TestDatabase> {
  // The run's template (see prepareTemplate): a SQLite file to copy, or a PostgreSQL schema's
  // dump to replay into a new schema.
  const template = process.env.LECTERN_TEST_TEMPLATE;
  const database = await createTestDatabase();
  if (!template || !existsSync(template)) return database;
  if (database.options.engine === 'sqlite') {
    copyFileSync(template, database.options.sqlitePath ?? '');
    return database;
  }
  // One round trip and one transaction: the dump names the template schema, replaced by this one.
  const dump = readFileSync(template, 'utf8');
  const name = dump.match(/^-- lectern template schema: (\S+)$/m)?.[1];
  if (!name || !database.options.schema) return database;
  await adminQuery(testDatabaseUrl(), `begin;\n${dump.replaceAll(name, database.options.schema)}\ncommit;`);
  return database;
}

/**
 * Builds a run's template in `dir`: a SQLite file, or for PostgreSQL a schema of the run migrated
 * once and dumped as SQL (pg_dump, the server's own tool). Returns its path, or undefined when it
 * cannot be made here (no pg_dump of the server's version): then each app migrates its own.
 */
export async function prepareTemplate(
  engine: 'sqlite' | 'postgres',
  dir: string,
): Promise<string | undefined> {
  const database = await createTestDatabase(engine);
  try {
    const db = openDatabase(database.options);
    try {
      await migrateToLatest(db);
    } finally {
      await db.destroy();
    }
    if (database.options.engine === 'sqlite') {
      const path = join(dir, 'template.sqlite');
      copyFileSync(database.options.sqlitePath ?? '', path);
      return path;
    }
    const schema = database.options.schema ?? '';
    let dump: string;
    try {
      dump = execFileSync(
        'pg_dump',
        ['--dbname', testDatabaseUrl(), '--schema', schema, '--no-owner', '--no-privileges', '--inserts'],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
    } catch {
      return undefined;
    }
    // psql's meta-commands (\restrict) are not SQL, and the schema exists before the replay (it
    // is made as for any test). The dump's search_path setting ('') stays on the replaying
    // connection, which is closed right after.
    const sql = dump.replace(/^\\.*$/gm, '').replace(/^CREATE SCHEMA .*;$/m, '');
    const path = join(dir, 'template.sql');
    writeFileSync(path, `-- lectern template schema: ${schema}\n${sql}`);
    return path;
  } finally {
    await database.drop();
  }
}

function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('LECTERN_TEST_ENGINE=postgres needs TEST_DATABASE_URL');
  return url;
}

async function adminQuery(url: string, text: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}
