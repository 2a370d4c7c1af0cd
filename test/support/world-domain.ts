import { createSchool } from '../../src/domain/school/schools.ts';
import { type Db, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { addPerson } from './world.ts';

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

/**
 * The domain contract tests' scene: a fresh database with no app in front (the functions are
 * called directly), two schools and the people every contract test uses.
 */
export async function createDomainFixture(): Promise<DomainFixture> {
  const database = await createTestDatabase();
  const db = openDatabase(database.options);
  await migrateToLatest(db);
  const a = await createSchool(db, { name: 'School A', subdomain: 'a', currency: 'USD' });
  const b = await createSchool(db, { name: 'School B', subdomain: 'b', currency: 'EUR' });
  const alice = await addPerson(db, a.id, ['student'], 'alice@example.com', 'Alice');
  const bob = await addPerson(db, a.id, ['student'], 'bob@example.com', 'Bob');
  const carol = await addPerson(db, b.id, ['student'], 'carol@example.com', 'Carol');
  return {
    db,
    database,
    schoolA: a.id,
    schoolB: b.id,
    alice,
    bob,
    carol,
    close: async () => {
      await db.destroy();
      await database.drop();
    },
  };
}
