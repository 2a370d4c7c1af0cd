/**
 * How an Idempotency-Key claim behaves while its first request is still running, and what
 * becomes of claims left in progress by the release that committed claims before the work.
 * (The crash case itself, kill -9 of a real server, is test/cli/idempotency-crash.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../support/app.ts';
import { ENGINE } from '../support/database.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { api } from './api.ts';

describe('admin API: Idempotency-Key claims', () => {
  let t: TestApp;
  let s: SchoolFixture;
  let call: ReturnType<typeof api>;
  before(async () => {
    t = await createTestApp();
    s = await schoolFixture(t);
    call = api(t, await s.token());
  });
  after(() => t.close());

  const coursesWithSlug = async (slug: string) =>
    (
      await t.runtime.db
        .selectFrom('courses')
        .select('id')
        .where('school_id', '=', s.schoolId)
        .where('slug', '=', slug)
        .execute()
    ).length;

  // Course inserts slowed by a trigger, so a duplicate arrives while the first is inside its work.
  async function withSlowInserts(seconds: number, fn: () => Promise<void>): Promise<void> {
    const db = t.runtime.db;
    if (ENGINE === 'postgres') {
      await sql`create function claims_test_slow() returns trigger language plpgsql as $$
        begin perform pg_sleep(${sql.lit(seconds)}); return new; end $$`.execute(db);
      await sql`create trigger claims_test_slow before insert on courses
        for each row execute function claims_test_slow()`.execute(db);
    } else {
      const rows = Math.round(Math.sqrt(seconds * 7e7));
      await sql`create table claims_test_rows (n integer)`.execute(db);
      await sql`with recursive r(i) as (select 1 union all select i + 1 from r where i < ${sql.lit(rows)})
        insert into claims_test_rows select i from r`.execute(db);
      await sql`create trigger claims_test_slow before insert on courses
        begin select count(*) from claims_test_rows a, claims_test_rows b; end`.execute(db);
    }
    try {
      await fn();
    } finally {
      await sql`drop trigger claims_test_slow${sql.raw(ENGINE === 'postgres' ? ' on courses' : '')}`.execute(
        db,
      );
      if (ENGINE === 'postgres') await sql`drop function claims_test_slow()`.execute(db);
      else await sql`drop table claims_test_rows`.execute(db);
    }
  }

  it('IETF Idempotency-Key §2.6: a duplicate waits for the running first request, then replays it', async () => {
    const headers = { 'idempotency-key': 'slow-dup' };
    const body = { slug: 'slow-dup', title: 'Slow' };
    await withSlowInserts(1, async () => {
      const first = call('POST', '/api/v1/courses', body, headers);
      await sleep(100);
      const [a, b] = await Promise.all([first, call('POST', '/api/v1/courses', body, headers)]);
      assert.equal(a.status, 201);
      assert.equal(a.headers.get('idempotent-replayed'), null);
      assert.equal(b.status, 201);
      assert.equal(b.headers.get('idempotent-replayed'), 'true');
      assert.equal(b.body.id, a.body.id);
    });
    assert.equal(await coursesWithSlug('slow-dup'), 1);
  });

  it('on PostgreSQL a duplicate waits at most 5 s, then is a 409 idempotency_key_in_progress with Retry-After', {
    skip: ENGINE !== 'postgres' && 'SQLite runs transactions one at a time: the duplicate always waits',
  }, async () => {
    const headers = { 'idempotency-key': 'very-slow-dup' };
    const body = { slug: 'very-slow-dup', title: 'Very slow' };
    await withSlowInserts(6.5, async () => {
      const first = call('POST', '/api/v1/courses', body, headers);
      await sleep(200);
      const waited = Date.now();
      const b = await call('POST', '/api/v1/courses', body, headers);
      assert.ok(Date.now() - waited >= 4500, `answered after ${Date.now() - waited} ms`);
      assert.equal(b.status, 409);
      assert.equal(b.headers.get('content-type'), 'application/problem+json');
      assert.equal(b.headers.get('retry-after'), '1');
      assert.equal(b.body.code, 'idempotency_key_in_progress');
      const a = await first;
      assert.equal(a.status, 201);
      const c = await call('POST', '/api/v1/courses', body, headers);
      assert.equal(c.status, 201);
      assert.equal(c.headers.get('idempotent-replayed'), 'true');
      assert.equal(c.body.id, a.body.id);
    });
    assert.equal(await coursesWithSlug('very-slow-dup'), 1);
  });

  it('a claim left in progress by the previous release is taken over once it is 5 minutes old', async () => {
    const headers = { 'idempotency-key': 'legacy' };
    const body = { slug: 'legacy', title: 'Legacy' };
    const done = await call('POST', '/api/v1/courses', body, headers);
    assert.equal(done.status, 201);
    // What the previous release left after a crash: the claim committed, the object never made.
    // No release of this one writes such a row, so it stays a direct write; its age is the clock's.
    assert.equal((await call('DELETE', `/api/v1/courses/${done.body.id}`)).status, 204);
    await t.runtime.db
      .updateTable('idempotency_keys')
      .set({ response_status: 0, response_body: '' })
      .where('key', '=', 'legacy')
      .execute();
    const young = await t.clock.travel(60_000, () => call('POST', '/api/v1/courses', body, headers));
    assert.equal(young.status, 409);
    assert.equal(young.body.code, 'idempotency_key_in_progress');
    t.clock.advance(6 * 60_000);
    const taken = await call('POST', '/api/v1/courses', body, headers);
    assert.equal(taken.status, 201);
    assert.equal(taken.headers.get('idempotent-replayed'), null);
    assert.notEqual(taken.body.id, done.body.id);
    const replay = await call('POST', '/api/v1/courses', body, headers);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.body.id, taken.body.id);
    assert.equal(await coursesWithSlug('legacy'), 1);
  });
});
