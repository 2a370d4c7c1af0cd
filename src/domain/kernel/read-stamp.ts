import { CompiledQuery, PostgresAdapter } from 'kysely';
import { changeWatermark, type Db, preparedOnPostgres } from '../../store/database.ts';

// The snapshot's text names the first unassigned transaction id and every one still running, so
// it moves when any transaction starts writing and again when it ends (commit or rollback).
const SNAPSHOT = 'select pg_current_snapshot()::text as stamp';

/**
 * A reader of the database's read stamp: a value that changes whenever what a read sees may
 * have changed, by this instance or any other. Read it before reading what a cache keeps; while
 * it reads the same, nothing was written in between and the kept reads are still exact. On
 * SQLite the connection's change watermark (no query: a pragma in process); on PostgreSQL the
 * current snapshot (one round trip, no table read), which every instance sees alike. Undefined
 * when the database offers neither (a SQLite handle opened around the watermark): cache nothing.
 */
export function readStamp(db: Db): (() => Promise<string>) | undefined {
  const watermark = changeWatermark(db);
  if (watermark) return async () => watermark();
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return undefined;
  preparedOnPostgres(db, SNAPSHOT);
  const query = CompiledQuery.raw(SNAPSHOT, []);
  return async () => {
    const { rows } = await db.executeQuery<{ stamp: string }>(query);
    return rows[0]!.stamp;
  };
}
