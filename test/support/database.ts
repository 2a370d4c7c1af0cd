import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DatabaseOptions } from '../../src/store/database.ts';

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

export async function createTestDatabase(): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-test-'));
  if (ENGINE === 'sqlite') {
    const sqlitePath = join(dir, 'lectern.sqlite');
    return {
      options: { engine: 'sqlite', url: `file:${sqlitePath}`, sqlitePath },
      env: { DATABASE_URL: `file:${sqlitePath}` },
      dir,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('LECTERN_TEST_ENGINE=postgres needs TEST_DATABASE_URL');
  // Under scripts/test.ts a whole run shares a prefix and its schemas are dropped after the run:
  // dropping one while a parallel worker's migrator introspects the catalogue can fail that
  // worker with "schema does not exist" (3F000).
  const run = process.env.LECTERN_TEST_RUN;
  const schema = `t_${run ?? process.pid}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const withSchema = new URL(url);
  withSchema.searchParams.set('options', `-c search_path=${schema}`);
  return {
    options: { engine: 'postgres', url, schema },
    env: { DATABASE_URL: withSchema.toString() },
    dir,
    drop: async () => {
      if (run) {
        rmSync(dir, { recursive: true, force: true });
        return;
      }
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
