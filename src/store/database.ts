import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, Migrator, PostgresAdapter, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { migrationProvider } from './migrations/index.ts';
import type { Database } from './schema.ts';
import { withCurrentSchemaIntrospection } from './scoped-introspector.ts';
import { createSqliteDialect } from './sqlite-dialect.ts';
import { withTextGuard } from './text-guard.ts';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;

/** What openDatabase needs: the engine, and for PostgreSQL an optional schema to live in. */
export interface DatabaseOptions {
  readonly engine: 'sqlite' | 'postgres';
  readonly url: string;
  readonly sqlitePath?: string;
  /** PostgreSQL only: the schema every connection uses (tests give each run its own). */
  readonly schema?: string;
  readonly poolSize?: number;
}

// int8 (COUNT(*), SUM() of integer columns, and the bigint money columns of migration 0006) is
// read as a JS number: exact, because every amount is at most MAX_AMOUNT (domain/checks.ts), far
// below 2^53. SUM() of a bigint column is numeric, which callers turn into a number with Number().
const INT8_OID = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? (v: string) => Number.parseInt(v, 10)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** Opens the configured database (SQLite file or PostgreSQL pool) as a Kysely instance. */
export function openDatabase(options: DatabaseOptions | Config['database']): Db {
  if (options.engine === 'postgres') {
    const schema = 'schema' in options ? options.schema : undefined;
    if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
    const pool = new pg.Pool({
      connectionString: options.url,
      max: ('poolSize' in options ? options.poolSize : undefined) ?? 10,
      types: pgTypes,
      options: schema ? `-c search_path=${schema}` : undefined,
    });
    namePreparedStatements(pool);
    const dialect = withCurrentSchemaIntrospection(new PostgresDialect({ pool }));
    const db = new Kysely<Database>({ dialect: withTextGuard(dialect) });
    return db;
  }
  const path = options.sqlitePath ?? ':memory:';
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const { dialect, changeWatermark } = createSqliteDialect(path);
  const db = new Kysely<Database>({ dialect: withTextGuard(dialect) });
  watermarks.set(db, changeWatermark);
  return db;
}

const watermarks = new WeakMap<Db, () => string>();

/**
 * PostgreSQL plans every unnamed statement afresh: for the bearer token's four-table join that
 * was ~1 ms of planning against 0.07 ms of execution (EXPLAIN ANALYZE), on every request. SQL
 * registered here (fixed text, explicit columns) is sent as a named statement, so each pooled
 * connection parses and plans it once. The names are one process-wide map: a statement
 * registered through one database (or a transaction of it) is named on every pool, and a name
 * only ever lives on the connection that prepared it.
 */
const preparedNames = new Map<string, string>();

function namePreparedStatements(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      const [text, values] = args;
      const name = args.length === 2 && typeof text === 'string' ? preparedNames.get(text) : undefined;
      return name && Array.isArray(values) ? query({ name, text, values }) : query(...args);
    }) as typeof client.query;
  });
}

/**
 * Asks that `sql` be a named prepared statement on PostgreSQL (planned once per connection); a
 * no-op on SQLite, whose statements are cached already (sqlite-dialect.ts). Only for hot queries
 * with an explicit column list: a plan outlives nothing but the connection.
 */
export function preparedOnPostgres(db: Db | Tx, sql: string): void {
  if (db.getExecutor().adapter instanceof PostgresAdapter && !preparedNames.has(sql)) {
    preparedNames.set(sql, `lectern_${preparedNames.size + 1}`);
  }
}

/**
 * For an embedded SQLite database: a function whose value changes whenever anything may have been
 * written to it, by this process or any other (see sqlite-dialect.ts). Caches of database reads
 * stay exact by dropping everything when it moves. Undefined on PostgreSQL, where other instances
 * write without telling: there, read the database.
 */
export function changeWatermark(db: Db): (() => string) | undefined {
  return watermarks.get(db);
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  // Unless told a schema, Kysely takes migration tables found in ANY schema as its own; name the
  // connection's schema on PostgreSQL so databases sharing a server (tests, tenants) stay apart.
  const migrationTableSchema =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({ db, provider: migrationProvider, migrationTableSchema });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Runs fn in one transaction: committed if it resolves, rolled back if it throws. */
export function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(fn);
}
