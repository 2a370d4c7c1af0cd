import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { SqliteDialect } from 'kysely';

const MAX_CACHED_STATEMENTS = 500;

/** Binds what Kysely hands us to what node:sqlite accepts (it has no booleans or Dates). */
function bindable(value: unknown): SQLInputValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value as SQLInputValue;
}

/**
 * Adapts node:sqlite's DatabaseSync to the better-sqlite3 shape Kysely's SqliteDialect expects,
 * caching prepared statements (bounded) because the same few queries run on every request.
 */
class NodeSqliteDatabase {
  readonly #db: DatabaseSync;
  readonly #cache = new Map<string, PreparedStatement>();
  readonly #watermark: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    // Both in one statement: this runs before every cached bearer check (resource/verifier.ts).
    this.#watermark = db.prepare(
      'SELECT (SELECT data_version FROM pragma_data_version) AS version, total_changes() AS own',
    );
  }

  /**
   * A value that changes whenever the database's contents may have: `data_version` moves when
   * any other connection (another process, another instance on the same file) commits, and
   * `total_changes()` counts this connection's own writes, committed or not. Equal values mean
   * nothing was written in between, so reads made under the first are still true.
   */
  changeWatermark(): string {
    const { version, own } = this.#watermark.get() as { version: number; own: number };
    return `${version}:${own}`;
  }

  close(): void {
    this.#cache.clear();
    if (this.#db.isOpen) this.#db.close();
  }

  prepare(sql: string): PreparedStatement {
    let prepared = this.#cache.get(sql);
    if (!prepared) {
      // Kysely opens transactions with a deferred `begin`. Another process on the same file (a
      // `lectern worker`, the CLI) may commit between a transaction's first read and its first
      // write, and SQLite then refuses the upgrade at once (SQLITE_BUSY, no busy wait).
      // `begin immediate` takes the write lock up front, so a second writer waits its turn.
      const stmt = this.#db.prepare(sql === 'begin' ? 'begin immediate' : sql);
      prepared = {
        reader: stmt.columns().length > 0,
        all: (params) => stmt.all(...params.map(bindable)),
        run: (params) => stmt.run(...params.map(bindable)),
        iterate: (params) => stmt.iterate(...params.map(bindable)),
      };
      if (this.#cache.size >= MAX_CACHED_STATEMENTS) {
        this.#cache.delete(this.#cache.keys().next().value!);
      }
      this.#cache.set(sql, prepared);
    }
    return prepared;
  }
}

/** A prepared statement in the shape Kysely's SqliteDialect calls. */
interface PreparedStatement {
  readonly reader: boolean;
  all(params: readonly unknown[]): unknown[];
  run(params: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(params: readonly unknown[]): IterableIterator<unknown>;
}

/**
 * Opens a SQLite file with WAL, foreign keys and a busy timeout, as a Kysely dialect, with the
 * connection's change watermark (see NodeSqliteDatabase.changeWatermark).
 */
export function createSqliteDialect(path: string): { dialect: SqliteDialect; changeWatermark: () => string } {
  const db = new DatabaseSync(path, { timeout: 5000 });
  db.exec('PRAGMA foreign_keys = ON');
  if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  const database = new NodeSqliteDatabase(db);
  return {
    dialect: new SqliteDialect({ database }),
    changeWatermark: () => database.changeWatermark(),
  };
}
