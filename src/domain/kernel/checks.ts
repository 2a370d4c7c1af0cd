import { PostgresAdapter, sql } from 'kysely';
import { z } from 'zod';
import { type FieldError, type ProblemError, problem, problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { parseFields } from './parse.ts';

export { MAX_AMOUNT, MAX_COUNT, toIsoTimestamp } from './fields.ts';

/**
 * Collects a unit of work's validation failures and throws them together as one 422
 * `validation_failed`. Field rules are the entity's zod fields, parsed with `parse` (worded by
 * parse.ts); what is left to the caller is what a schema cannot know: rules over the database
 * (a lecturer of this school, a file that is an image) and across fields (ends after it starts),
 * reported with `fail`.
 */
export class Checks {
  readonly errors: FieldError[] = [];

  /** Parses `input` with an entity's fields; failing fields are absent from the result. */
  parse<S extends z.ZodObject>(fields: S, input: object): z.output<S> {
    const { data, errors } = parseFields(fields, input);
    this.errors.push(...errors);
    return data;
  }

  /** One value against one rule; `fallback` when it fails (the error is recorded). */
  rule<T>(field: string, rule: z.ZodType<T>, value: unknown, fallback: T): T {
    const parsed = this.parse(z.object({ [field]: rule }), { [field]: value });
    return field in parsed ? (parsed[field] as T) : fallback;
  }

  /** Records a failure found by the caller. */
  fail(field: string, message: string): void {
    this.errors.push({ field, message });
  }

  /** Throws 422 `validation_failed` listing every failure, if any. */
  done(): void {
    if (this.errors.length > 0) throw problems.validation(this.errors);
  }
}

/** Parses `input` with an entity's fields, or throws 422 `validation_failed` naming each field. */
export function parseValid<S extends z.ZodObject>(fields: S, input: object): z.output<S> {
  const c = new Checks();
  const data = c.parse(fields, input);
  c.done();
  return data;
}

/** 409 `slug_taken`: another `noun` (course, page, post) of the school already uses the slug. */
export function slugTaken(noun: string, slug: string): ProblemError {
  return problem('slug_taken', {
    detail: `Another ${noun} of this school already uses the slug "${slug}".`,
  });
}

/** True when a database error is a unique-constraint violation (SQLite or PostgreSQL). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errcode?: number; message?: string } | null;
  if (!e) return false;
  if (e.code === '23505') return true;
  return e.errcode === 2067 || e.errcode === 1555 || /UNIQUE constraint failed/.test(e.message ?? '');
}

/**
 * Holds one row of a school-owned table for the rest of the transaction, so concurrent
 * read-then-write sequences on it (a course's lecturers or curriculum, a person's lecturer
 * profile) run one after the other instead of colliding on a unique key, deadlocking or
 * interleaving. PostgreSQL: SELECT … FOR UPDATE, a row lock that writes no new row version (so a
 * REPEATABLE READ If-Match update of the same row is not failed by it). SQLite: a no-op UPDATE,
 * which takes the database's write lock now rather than at the transaction's first write. False
 * when the school has no such row.
 *
 * `shared` holds it FOR KEY SHARE instead (on SQLite it only checks the row is there): holders
 * of the shared lock never wait for one another (nor for inserts whose foreign key names the row,
 * which take the same lock), only for a holder of the exclusive one, and it for them. That suits
 * many small changes under a parent against one change that rewrites all of them (enrollments of
 * a course against a curriculum change).
 */
export async function lockRow(
  tx: Tx,
  table: 'courses' | 'memberships',
  schoolId: string,
  where: { id: string } | { user_id: string },
  { shared = false }: { shared?: boolean } = {},
): Promise<boolean> {
  const [column, value] = 'id' in where ? ['id', where.id] : ['user_id', where.user_id];
  const match = sql`school_id = ${schoolId} and ${sql.ref(column)} = ${value}`;
  if (tx.getExecutor().adapter instanceof PostgresAdapter) {
    const mode = shared ? sql`for key share` : sql`for update`;
    const { rows } = await sql`select 1 from ${sql.table(table)} where ${match} ${mode}`.execute(tx);
    return rows.length > 0;
  }
  if (shared) {
    // SQLite's writers take turns (its transactions begin immediate): sharing needs only the row.
    const { rows } = await sql`select 1 from ${sql.table(table)} where ${match}`.execute(tx);
    return rows.length > 0;
  }
  const result = await sql`update ${sql.table(table)} set updated_at = updated_at where ${match}`.execute(tx);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** The school-owned tables a plain delete applies to (each has `school_id` and `id`). */
export type OwnedTable =
  | 'courses'
  | 'coupons'
  | 'digital_products'
  | 'enrollments'
  | 'events'
  | 'lecturers'
  | 'membership_plans'
  | 'pages'
  | 'posts';

/**
 * Deletes one row of the school by id; 404 `not_found` ("No such <noun>.") when the school has
 * none, so another school's id is never told apart from a missing one.
 */
export async function deleteOwned(
  db: Db | Tx,
  table: OwnedTable,
  schoolId: string,
  id: string,
  noun: string,
): Promise<void> {
  const result = await db
    .deleteFrom(table)
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw problems.notFound(`No such ${noun}.`);
}

/** Runs fn in a transaction: the caller's if it is one, else a new one. */
export function withTransaction<T>(db: Db | Tx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Tx);
  return db.transaction().execute(fn);
}

/** 0/1 flag column to boolean. */
export function flag(value: number | boolean | null | undefined): boolean {
  return value === 1 || value === true;
}
