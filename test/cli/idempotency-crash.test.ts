/**
 * Idempotency-Key across a crash: a `lectern serve` child is killed with SIGKILL while creates
 * carrying keys are in flight, restarted on the same database, and every key is retried. Each
 * retry must succeed (the IETF httpapi Idempotency-Key draft, §2.6: a retry of a request that did
 * not complete is executed) and each object must exist exactly once.
 *
 * To catch requests in flight deterministically, the test database makes course inserts slow with
 * a trigger (pg_sleep on PostgreSQL, a large cross join on SQLite), and the kill happens once a
 * create is observably inside its insert.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { type Db, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../support/database.ts';
import { cliEnv, crashSchoolOwner, spawnLectern, untilListening } from './run.ts';

const BASE_URL = 'http://lectern.test';
const KEYS = 30;

interface Server {
  readonly child: ChildProcess;
  readonly url: string;
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const child = spawnLectern(['serve'], env);
  const { url } = await untilListening(child);
  return { child, url };
}

interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

/** One POST on its own connection; resolves with the status and body, or the socket error. */
function post(url: string, token: string, key: string, body: unknown): Promise<Reply | { error: string }> {
  return new Promise((resolve) => {
    const req = http.request(
      `${url}/api/v1/courses`,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }),
        );
        res.on('error', (err) => resolve({ error: err.message }));
      },
    );
    req.on('error', (err) => resolve({ error: err.message }));
    req.end(JSON.stringify(body));
  });
}

/** Makes every course insert take a second or more, so a create can be caught inside it. */
async function slowCourseInserts(db: Db): Promise<void> {
  if (ENGINE === 'postgres') {
    await sql`create function crash_test_slow() returns trigger language plpgsql as $$
      begin perform pg_sleep(1.5); return new; end $$`.execute(db);
    await sql`create trigger crash_test_slow before insert on courses
      for each row execute function crash_test_slow()`.execute(db);
    return;
  }
  // SQLite has no sleep and no CTE in trigger bodies: count a 10 000 × 10 000 cross join.
  await sql`create table crash_test_rows (n integer)`.execute(db);
  await sql`with recursive r(i) as (select 1 union all select i + 1 from r where i < 10000)
    insert into crash_test_rows select i from r`.execute(db);
  await sql`create trigger crash_test_slow before insert on courses
    begin select count(*) from crash_test_rows a, crash_test_rows b; end`.execute(db);
}

async function fastCourseInserts(db: Db): Promise<void> {
  await sql`drop trigger crash_test_slow${sql.raw(ENGINE === 'postgres' ? ' on courses' : '')}`.execute(db);
}

/**
 * Resolves once a create is inside its (slow) insert, observed from outside the server: on
 * PostgreSQL a backend of the server sleeping in the trigger; on SQLite a write transaction
 * holding the database's write lock.
 */
async function createInFlight(database: TestDatabase, appName: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  if (ENGINE === 'postgres') {
    const probe = openDatabase({ engine: 'postgres', url: process.env.TEST_DATABASE_URL!, poolSize: 1 });
    try {
      while (Date.now() < deadline) {
        const { rows } = await sql<{ n: number }>`select count(*) as n from pg_stat_activity
          where application_name = ${appName} and wait_event = 'PgSleep'`.execute(probe);
        if (Number(rows[0].n) > 0) return;
        await sleep(20);
      }
    } finally {
      await probe.destroy();
    }
    throw new Error('no create reached the database');
  }
  const { DatabaseSync } = await import('node:sqlite');
  const probe = new DatabaseSync(database.options.sqlitePath!, { timeout: 0 });
  try {
    while (Date.now() < deadline) {
      try {
        probe.exec('begin immediate');
        probe.exec('rollback');
      } catch {
        return; // SQLITE_BUSY: the server holds the write lock
      }
      await sleep(20);
    }
  } finally {
    probe.close();
  }
  throw new Error('no create reached the database');
}

describe('Idempotency-Key survives a crash of the server', () => {
  it('IETF Idempotency-Key §2.6: after kill -9 mid-request, every retried key succeeds once and each object exists exactly once', async () => {
    const database = await createTestDatabase();
    const appName = `lectern_crash_${randomBytes(4).toString('hex')}`;
    const dbEnv = { ...database.env };
    if (ENGINE === 'postgres') {
      const u = new URL(dbEnv.DATABASE_URL);
      u.searchParams.set('application_name', appName);
      dbEnv.DATABASE_URL = u.toString();
    }
    const env = cliEnv(database, { PORT: '0', BASE_URL, ...dbEnv });
    const db = openDatabase(database.options);
    let server: Server | undefined;
    try {
      await migrateToLatest(db);
      const { school, token } = await crashSchoolOwner(db, BASE_URL);
      await slowCourseInserts(db);
      const requests = Array.from({ length: KEYS }, (_, i) => ({
        key: `crash-key-${i}`,
        body: { slug: `crash-${i}`, title: `Crash ${i}` },
      }));

      server = await startServer(env);
      const first = requests.map((r) => post(server!.url, token, r.key, r.body));
      await createInFlight(database, appName);
      const killed = once(server.child, 'close');
      server.child.kill('SIGKILL');
      assert.equal((await killed)[1], 'SIGKILL');
      await Promise.all(first);
      await fastCourseInserts(db);

      server = await startServer(env);
      const retry = async () =>
        (await Promise.all(requests.map((r) => post(server!.url, token, r.key, r.body)))).map((r) => {
          assert.ok('status' in r, JSON.stringify(r));
          return r;
        });
      const retried = await retry();
      assert.deepEqual(
        retried.map((r) => `${r.status} ${r.body.code ?? r.body.slug}`),
        requests.map((r) => `201 ${r.body.slug}`),
      );
      // The kill caught work in flight: at least one retry ran afresh rather than replaying.
      assert.ok(retried.some((r) => r.headers['idempotent-replayed'] === undefined));
      const rows = await db
        .selectFrom('courses')
        .select(['id', 'slug'])
        .where('school_id', '=', school.id)
        .execute();
      assert.deepEqual(rows.map((r) => r.slug).sort(), requests.map((r) => r.body.slug).sort());
      assert.deepEqual(
        retried.map((r) => r.body.id),
        requests.map((r) => rows.find((c) => c.slug === r.body.slug)?.id),
      );
      // Retrying every key once more replays the same objects.
      const again = await retry();
      assert.deepEqual(
        again.map((r) => [r.status, r.headers['idempotent-replayed'], r.body.id]),
        retried.map((r) => [201, 'true', r.body.id]),
      );
    } finally {
      if (server && server.child.exitCode === null && server.child.signalCode === null) {
        const exited = once(server.child, 'close');
        server.child.kill('SIGTERM');
        await exited;
      }
      await db.destroy();
      await database.drop();
    }
  });
});
