import { Migrator, sql } from 'kysely';
import { type Db, openDatabase } from '../../src/store/database.ts';
import { migrationProvider, migrations } from '../../src/store/migrations/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from './database.ts';

/** A fresh database that a migration test moves step by step, as an older deployment's was. */
export interface StepDatabase {
  readonly db: Db;
  /** Applies every migration up to and including `name`; throws on a failed step. */
  migrateTo(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function openStepDatabase(): Promise<StepDatabase> {
  const database: TestDatabase = await createTestDatabase();
  const db = openDatabase(database.options);
  // On PostgreSQL Kysely's bookkeeping stays in the test's own schema (as migrateToLatest keeps it).
  const schema =
    ENGINE === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0].schema
      : undefined;
  const migrator = new Migrator({ db, provider: migrationProvider, migrationTableSchema: schema });
  return {
    db,
    async migrateTo(name) {
      const { error } = await migrator.migrateTo(name);
      if (error) throw error;
    },
    async close() {
      await db.destroy();
      await database.drop();
    },
  };
}

/** The listed migrations after `name`, in order: what migrating to the latest then applies. */
export function migrationsAfter(name: string): string[] {
  return Object.keys(migrations).filter((m) => m > name);
}
