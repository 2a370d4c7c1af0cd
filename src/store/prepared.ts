import { type Compilable, CompiledQuery, type QueryResult } from 'kysely';
import { type Db, preparedOnPostgres, type Tx } from './database.ts';

// The stand-in for argument i while the query is compiled. NUL never reaches a real statement
// (text-guard.ts refuses it), so a stand-in cannot be mistaken for a value.
const ARG = '\u0000arg';

/**
 * A hot statement built with the query builder once per database and compiled once, then
 * executed with each call's arguments: building and compiling a Kysely query cost more than
 * SQLite's execution of the indexed lookups on the UserInfo and introspection paths.
 * On PostgreSQL the statement is also named (`preparedOnPostgres`), so each pooled connection
 * plans it once. `build` receives `arg(i)` to place the i-th argument (one argument may be placed
 * several times); every other value in it is fixed. Reads list their columns (a plan outlives
 * nothing but the connection, and must not outlive a table's shape).
 */
function preparedQuery<Row>(
  build: (db: Db, arg: (i: number) => string) => Compilable<Row>,
): (db: Db | Tx, ...args: unknown[]) => Promise<QueryResult<Row>> {
  // By the engine's adapter: a transaction shares its database's.
  const compiled = new WeakMap<object, { sql: string; fixed: readonly unknown[]; slots: number[] }>();
  return (db, ...args) => {
    const adapter = db.getExecutor().adapter;
    let query = compiled.get(adapter);
    if (!query) {
      const { sql, parameters } = build(db as Db, (i) => `${ARG}${i}`).compile();
      const slots = parameters.map((p) =>
        typeof p === 'string' && p.startsWith(ARG) ? Number(p.slice(ARG.length)) : -1,
      );
      query = { sql, fixed: parameters, slots };
      preparedOnPostgres(db, sql);
      compiled.set(adapter, query);
    }
    const { sql, fixed, slots } = query;
    const parameters = slots.map((slot, i) => (slot < 0 ? fixed[i] : args[slot]));
    return db.executeQuery<Row>(CompiledQuery.raw(sql, parameters));
  };
}

/** preparedQuery for a read: the rows. */
export function preparedRead<Row>(
  build: (db: Db, arg: (i: number) => string) => Compilable<Row>,
): (db: Db | Tx, ...args: unknown[]) => Promise<Row[]> {
  const query = preparedQuery(build);
  return async (db, ...args) => (await query(db, ...args)).rows;
}

/** preparedQuery for an UPDATE, INSERT or DELETE: how many rows it changed. */
export function preparedWrite(
  build: (db: Db, arg: (i: number) => string) => Compilable<unknown>,
): (db: Db | Tx, ...args: unknown[]) => Promise<number> {
  const query = preparedQuery(build);
  return async (db, ...args) => Number((await query(db, ...args)).numAffectedRows ?? 0);
}
