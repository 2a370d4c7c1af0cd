import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { type ProblemError, problem } from '../errors/problem-error.ts';

/** The refusal every surface renders in its own format (OAuth JSON, problem, GraphQL, MCP). */
function nulRefused(): ProblemError {
  return problem('invalid_text', {
    detail: 'Text values must not contain NUL (U+0000) characters.',
  });
}

function check(query: CompiledQuery): void {
  for (const p of query.parameters) {
    if (typeof p === 'string' && p.includes('\u0000')) throw nulRefused();
  }
}

/** A connection that refuses NUL characters in bound text before the database sees them. */
class GuardedConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  constructor(inner: DatabaseConnection) {
    this.inner = inner;
  }
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    check(query);
    return this.inner.executeQuery<R>(query);
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    check(query);
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

const unwrap = (c: DatabaseConnection) => (c instanceof GuardedConnection ? c.inner : c);

/** Passes everything to the real driver, handing it back its own connection objects. */
class GuardedDriver implements Driver {
  readonly #inner: Driver;
  constructor(inner: Driver) {
    this.#inner = inner;
  }
  init() {
    return this.#inner.init();
  }
  async acquireConnection() {
    return new GuardedConnection(await this.#inner.acquireConnection());
  }
  beginTransaction(c: DatabaseConnection, settings: TransactionSettings) {
    return this.#inner.beginTransaction(unwrap(c), settings);
  }
  commitTransaction(c: DatabaseConnection) {
    return this.#inner.commitTransaction(unwrap(c));
  }
  rollbackTransaction(c: DatabaseConnection) {
    return this.#inner.rollbackTransaction(unwrap(c));
  }
  releaseConnection(c: DatabaseConnection) {
    return this.#inner.releaseConnection(unwrap(c));
  }
  destroy() {
    return this.#inner.destroy();
  }
}

/**
 * Adds the savepoint methods only where the real driver has them: Kysely refuses savepoints on a
 * driver without them, and a wrapper that always had them would silently skip them instead.
 */
function withSavepoints(guarded: GuardedDriver, inner: Driver): Driver {
  if (!inner.savepoint || !inner.rollbackToSavepoint || !inner.releaseSavepoint) return guarded;
  const { savepoint, rollbackToSavepoint, releaseSavepoint } = inner;
  return Object.assign(guarded, {
    savepoint: (c: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) =>
      savepoint.call(inner, unwrap(c), name, compile),
    rollbackToSavepoint: (c: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) =>
      rollbackToSavepoint.call(inner, unwrap(c), name, compile),
    releaseSavepoint: (c: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) =>
      releaseSavepoint.call(inner, unwrap(c), name, compile),
  });
}

/**
 * Wraps a dialect so no text with U+0000 reaches storage: PostgreSQL cannot store it (the query
 * fails, which surfaced as a 500) and SQLite would truncate it in places. One guard here, rather
 * than a check in every parser, covers every surface and both engines alike.
 */
export function withTextGuard(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => {
      const inner = dialect.createDriver();
      return withSavepoints(new GuardedDriver(inner), inner);
    },
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
