import { type SelectQueryBuilder, sql } from 'kysely';
import { type ProblemError, problem, problems } from '../../errors/problem-error.ts';

/** Default and largest page size of every list (product.md §6). */
const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/** What a caller asks for: how many, and after which cursor (opaque, from a previous page). */
export interface PageParams {
  readonly limit?: number;
  readonly cursor?: string | null;
}

/** One page of a list, in the shape the REST API returns as-is. */
export interface Page<T> {
  readonly data: T[];
  /** Null on the last page. */
  readonly next_cursor: string | null;
}

/** How to order and where the keys live. */
export interface PaginateOptions {
  /** Table (or alias) whose `id` is the cursor, e.g. `enrollments`. */
  readonly table: string;
  /**
   * Sort by this column of `table` first (ties broken by id), e.g. `starts_at`. The cursor is
   * still the last id: its sort value is looked up, so cursors stay opaque and short.
   */
  readonly sortColumn?: string;
  readonly direction?: 'asc' | 'desc';
}

const ID_PATTERN = /^[a-z][a-z0-9]*_[0-9a-z]{26}$/;

/** The opaque cursor of an id: base64url, so clients do not build or parse them. */
export function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

/**
 * The 400 every list answers for a cursor it would not have issued: malformed, of another list,
 * or naming a row the caller's list does not hold (another school's, another member's, hidden).
 */
export function invalidCursor(): ProblemError {
  return problem('invalid_cursor', {
    detail: 'The cursor is not one this API returned.',
  });
}

/** The id inside a cursor; anything that is not one of ours is a 400 `invalid_cursor`. */
export function decodeCursor(cursor: string): string {
  const id = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!ID_PATTERN.test(id)) throw invalidCursor();
  return id;
}

/** Checks a page size: an integer 1..100, default 20. Out of range is an error, never a clamp. */
export function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw problems.validation([
      { field: 'limit', message: `must be an integer from 1 to ${MAX_PAGE_LIMIT}` },
    ]);
  }
  return limit;
}

/**
 * Runs `query` one page at a time by keyset: rows after the cursor, ordered by (sortColumn,) id.
 * The query must select the table's `id` as `id` and must not be ordered or limited already.
 * The cursor must name a row `query` itself lists (see cursorPosition), else 400 `invalid_cursor`.
 */
export async function paginate<DB, TB extends keyof DB, O extends { id: string }>(
  query: SelectQueryBuilder<DB, TB, O>,
  params: PageParams,
  options: PaginateOptions,
): Promise<Page<O>> {
  const limit = checkLimit(params.limit);
  const after = params.cursor ? await cursorPosition(query, decodeCursor(params.cursor), options) : null;
  const rows = await keysetQuery(query, after, limit, options);
  const more = rows.length > limit;
  const data = more ? rows.slice(0, limit) : rows;
  return { data, next_cursor: more ? encodeCursor(data[data.length - 1].id) : null };
}

/** Maps a page's rows to domain objects, keeping its cursor. */
export function mapPage<R, T>(page: Page<R>, fn: (row: R) => T): Page<T> {
  return { data: page.data.map(fn), next_cursor: page.next_cursor };
}

/** Counts what `query` would list (for GraphQL totalCount), whatever it selects or orders. */
export async function countRows<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
): Promise<number> {
  const row = await query
    .clearSelect()
    .clearOrderBy()
    .clearLimit()
    .clearOffset()
    .select(sql<number>`count(*)`.as('count'))
    .executeTakeFirst();
  return Number((row as { count?: number | string } | undefined)?.count ?? 0);
}

/** Where a page starts: the cursor row's id and, when sorting by a column, its value there. */
interface CursorPosition {
  readonly id: string;
  readonly sort?: unknown;
}

/**
 * Finds the cursor row inside the caller's own filtered query (school, member, audience,
 * status: whatever `query` already says), never in the bare table: paging relative to a row the
 * caller may not list would reveal where its sort value falls. A row outside the
 * query, deleted, or never ours is 400 `invalid_cursor`; the client starts again from page one.
 */
async function cursorPosition<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  afterId: string,
  options: PaginateOptions,
): Promise<CursorPosition> {
  const id = sql.ref(`${options.table}.id`);
  const value = options.sortColumn ? sql.ref(`${options.table}.${options.sortColumn}`) : id;
  const row = await query
    .clearSelect()
    .select(sql<unknown>`${value}`.as('cursor_sort'))
    .where(sql<boolean>`${id} = ${afterId}`)
    .limit(1)
    .executeTakeFirst();
  if (!row) throw invalidCursor();
  return options.sortColumn
    ? { id: afterId, sort: (row as { cursor_sort: unknown }).cursor_sort }
    : { id: afterId };
}

function keysetQuery<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  after: CursorPosition | null,
  limit: number,
  options: PaginateOptions,
): Promise<O[]> {
  const asc = (options.direction ?? 'asc') === 'asc';
  const dir = asc ? sql`asc` : sql`desc`;
  const op = asc ? sql`>` : sql`<`;
  const id = sql.ref(`${options.table}.id`);
  let q = query;
  if (options.sortColumn) {
    const sort = sql.ref(`${options.table}.${options.sortColumn}`);
    if (after) {
      // Keyset on (sort, id), from the sort value read inside the caller's query.
      q = q.where(
        sql<boolean>`(${sort} ${op} ${after.sort} or (${sort} = ${after.sort} and ${id} ${op} ${after.id}))`,
      );
    }
    q = q.orderBy(sql`${sort} ${dir}`).orderBy(sql`${id} ${dir}`);
  } else {
    if (after) q = q.where(sql<boolean>`${id} ${op} ${after.id}`);
    q = q.orderBy(sql`${id} ${dir}`);
  }
  return q.limit(limit + 1).execute();
}
