import { addRoles } from '../../src/domain/school/memberships.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { type Db, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/** A migrated database on the engine under test, with two schools and a few people. */
export interface DomainFixture {
  readonly db: Db;
  readonly database: TestDatabase;
  readonly schoolA: string;
  readonly schoolB: string;
  /** Student of A. */
  readonly alice: string;
  /** Student of A. */
  readonly bob: string;
  /** Student of B only. */
  readonly carol: string;
  close(): Promise<void>;
}

/** Opens a fresh database and the people every contract test uses. */
export async function createDomainFixture(): Promise<DomainFixture> {
  const database = await createTestDatabase();
  const db = openDatabase(database.options);
  await migrateToLatest(db);
  const a = await createSchool(db, { name: 'School A', subdomain: 'a', currency: 'USD' });
  const b = await createSchool(db, { name: 'School B', subdomain: 'b', currency: 'EUR' });
  const alice = await createUser(db, { email: 'alice@example.com', name: 'Alice', passwordHash: null });
  const bob = await createUser(db, { email: 'bob@example.com', name: 'Bob', passwordHash: null });
  const carol = await createUser(db, { email: 'carol@example.com', name: 'Carol', passwordHash: null });
  await addRoles(db, a.id, alice.id, ['student']);
  await addRoles(db, a.id, bob.id, ['student']);
  await addRoles(db, b.id, carol.id, ['student']);
  return {
    db,
    database,
    schoolA: a.id,
    schoolB: b.id,
    alice: alice.id,
    bob: bob.id,
    carol: carol.id,
    close: async () => {
      await db.destroy();
      await database.drop();
    },
  };
}

/** Resolves to the ProblemError a promise rejects with, for asserting status and code. */
export async function problemOf(
  p: Promise<unknown>,
): Promise<{ status: number; code: string; errors?: unknown }> {
  try {
    await p;
  } catch (err) {
    const e = err as { name?: string; status: number; code: string; errors?: unknown };
    if (e.name !== 'ProblemError') throw err;
    return { status: e.status, code: e.code, errors: e.errors };
  }
  throw new Error('expected a ProblemError, but the call succeeded');
}
