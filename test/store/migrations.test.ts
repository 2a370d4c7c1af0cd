import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type Db, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { migrations } from '../../src/store/migrations/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../support/database.ts';
import { TABLES } from './tables.ts';

/** Tables of this test's own database or schema (PostgreSQL introspection spans every schema). */
async function ownTables(db: Db) {
  const schema =
    ENGINE === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0].schema
      : undefined;
  return (await db.introspection.getTables()).filter((t) => schema === undefined || t.schema === schema);
}

describe(`migrations on ${ENGINE}`, () => {
  let database: TestDatabase;
  let db: Db;
  let applied: string[];
  before(async () => {
    database = await createTestDatabase();
    db = openDatabase(database.options);
    applied = await migrateToLatest(db);
  });
  after(async () => {
    await db.destroy();
    await database.drop();
  });

  it('applies every migration, in order, on an empty database', () => {
    assert.deepEqual(applied, Object.keys(migrations).sort());
  });

  it('creates every table of the Database type, each readable', async () => {
    const found = (await ownTables(db)).map((t) => t.name);
    for (const table of TABLES) {
      assert.ok(found.includes(table), `table ${table} exists`);
      const row = await db.selectFrom(table).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
      assert.equal(Number(row.n), 0);
    }
  });

  it('adds nothing when run again, on the same or a new connection', async () => {
    const before = (await ownTables(db)).map((t) => `${t.name}:${t.columns.length}`).sort();
    assert.deepEqual(await migrateToLatest(db), []);
    const again = openDatabase(database.options);
    try {
      assert.deepEqual(await migrateToLatest(again), []);
    } finally {
      await again.destroy();
    }
    const afterwards = (await ownTables(db)).map((t) => `${t.name}:${t.columns.length}`).sort();
    assert.deepEqual(afterwards, before);
  });

  it('PostgreSQL: introspection (what the migrator reads) never looks outside the connection’s schema', {
    skip: ENGINE !== 'postgres',
  }, async () => {
    // Another database on the same server, half migrated: Kysely's own introspector reads every
    // schema and fails while one is altered or dropped under it (parallel test runs, tenants).
    const other = `t_other_${Date.now().toString(36)}`;
    await sql`create schema ${sql.id(other)}`.execute(db);
    try {
      await sql`create table ${sql.id(other, 'kysely_migration')} (name text)`.execute(db);
      await sql`create table ${sql.id(other, 'enrollments')} (id text)`.execute(db);
      const tables = await db.introspection.getTables();
      const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0].s;
      assert.ok(tables.length >= TABLES.length);
      assert.ok(
        tables.every((t) => t.schema === schema),
        'only this schema',
      );
      const enrollments = tables.find((t) => t.name === 'enrollments');
      assert.ok(
        enrollments?.columns.some((c) => c.name === 'school_id'),
        'this schema’s columns',
      );
      assert.deepEqual(await migrateToLatest(db), []);
    } finally {
      await sql`drop schema ${sql.id(other)} cascade`.execute(db);
    }
  });

  it('enforces foreign keys and unique constraints on this engine', async () => {
    await assert.rejects(
      db
        .insertInto('memberships')
        .values({
          id: 'mem_x',
          school_id: 'sch_missing',
          user_id: 'usr_missing',
          roles: '[]',
          status: 'active',
          invited_by_user_id: null,
          created_at: 'x',
          updated_at: 'x',
        })
        .execute(),
    );
    const user = {
      id: 'usr_1',
      email: 'a@example.com',
      name: 'A',
      password_hash: null,
      created_at: 'x',
      updated_at: 'x',
    };
    await db.insertInto('users').values(user).execute();
    await assert.rejects(
      db
        .insertInto('users')
        .values({ ...user, id: 'usr_2' })
        .execute(),
    );
    await db.deleteFrom('users').execute();
  });
});
