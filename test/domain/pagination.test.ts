import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import {
  checkLimit,
  countRows,
  decodeCursor,
  encodeCursor,
  type Page,
  paginate,
} from '../../src/domain/kernel/pagination.ts';
import { createDomainFixture, type DomainFixture } from '../support/world-domain.ts';
import { problemOf } from './problem-of.ts';

describe('cursor pagination over time-sortable ids', () => {
  let f: DomainFixture;
  const ids: string[] = [];
  before(async () => {
    f = await createDomainFixture();
    for (let i = 1; i <= 25; i++) {
      ids.push((await createCourse(f.db, f.schoolA, { slug: `c-${i}`, title: `Course ${i}` })).id);
    }
    await createCourse(f.db, f.schoolB, { slug: 'c-1', title: 'Other school course' });
    ids.sort();
  });
  after(() => f.close());

  const query = () =>
    f.db.selectFrom('courses').select(['courses.id', 'courses.slug']).where('school_id', '=', f.schoolA);

  it('round-trips ids through opaque base64url cursors', () => {
    const cursor = encodeCursor(ids[0]);
    assert.match(cursor, /^[A-Za-z0-9_-]+$/);
    assert.notEqual(cursor, ids[0]);
    assert.equal(decodeCursor(cursor), ids[0]);
  });

  it('rejects a cursor it did not issue with 400 invalid_cursor', async () => {
    for (const bad of ['not a cursor', encodeCursor('x'), 'abc', encodeCursor("crs_' or 1=1 --")]) {
      assert.deepEqual(await problemOf(paginate(query(), { cursor: bad }, { table: 'courses' })), {
        status: 400,
        code: 'invalid_cursor',
        errors: undefined,
      });
    }
  });

  it('refuses a cursor naming a row outside the query (another school, a filtered-out row), with or without a sort column', async () => {
    const foreign = await f.db
      .selectFrom('courses')
      .select('id')
      .where('school_id', '=', f.schoolB)
      .executeTakeFirstOrThrow();
    const onlyEven = () => query().where('courses.slug', 'in', ['c-2', 'c-4', 'c-6']);
    const odd = await query()
      .where('courses.slug', '=', 'c-3')
      .select('courses.id as odd')
      .executeTakeFirstOrThrow();
    for (const options of [{ table: 'courses' }, { table: 'courses', sortColumn: 'slug' }] as const) {
      for (const [q, id] of [
        [query, foreign.id],
        [onlyEven, odd.id],
        [query, 'crs_00000000000000000000000000'],
      ] as const) {
        assert.deepEqual(await problemOf(paginate(q(), { cursor: encodeCursor(id) }, options)), {
          status: 400,
          code: 'invalid_cursor',
          errors: undefined,
        });
      }
    }
  });

  it('defaults to 20 and walks every row exactly once, in id order', async () => {
    const first = await paginate(query(), {}, { table: 'courses' });
    assert.equal(first.data.length, 20);
    assert.ok(first.next_cursor);
    const second = await paginate(query(), { cursor: first.next_cursor }, { table: 'courses' });
    assert.equal(second.data.length, 5);
    assert.equal(second.next_cursor, null);
    assert.deepEqual(
      [...first.data, ...second.data].map((r) => r.id),
      ids,
    );
  });

  it('ends with next_cursor null when the page is exactly full', async () => {
    const page = await paginate(query(), { limit: 25 }, { table: 'courses' });
    assert.equal(page.data.length, 25);
    assert.equal(page.next_cursor, null);
  });

  it('walks backwards with direction desc', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<{ id: string; slug: string }> = await paginate(
        query(),
        { limit: 7, cursor },
        { table: 'courses', direction: 'desc' },
      );
      seen.push(...page.data.map((r) => r.id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, [...ids].reverse());
  });

  it('sorts by another column with the id as tie-breaker, cursor still the id', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<{ id: string; slug: string }> = await paginate(
        query(),
        { limit: 4, cursor },
        { table: 'courses', sortColumn: 'slug' },
      );
      seen.push(...page.data.map((r) => r.slug));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, Array.from({ length: 25 }, (_, i) => `c-${i + 1}`).sort());
  });

  it('treats a limit outside 1..100 as a validation error, never a clamp', async () => {
    for (const limit of [0, -1, 101, 1.5]) {
      const p = await problemOf(paginate(query(), { limit }, { table: 'courses' }));
      assert.equal(p.status, 422);
      assert.equal(p.code, 'validation_failed');
      assert.deepEqual(p.errors, [{ field: 'limit', message: 'must be an integer from 1 to 100' }]);
    }
    assert.equal(checkLimit(100), 100);
    assert.equal(checkLimit(undefined), 20);
  });

  it('counts what a query lists, whatever it selects', async () => {
    assert.equal(await countRows(query()), 25);
    assert.equal(await countRows(query().where('courses.slug', 'like', 'c-1%')), 11);
  });
});
