import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type Db, migrateToLatest } from '../../src/store/database.ts';
import { MONEY_COLUMNS } from '../../src/store/migrations/0006-bigint-amounts.ts';
import { ENGINE } from '../support/database.ts';
import { migrationsAfter, openStepDatabase, type StepDatabase } from '../support/migration-steps.ts';

const BIG = 2_147_483_648;
const MAX_AMOUNT = 100_000_000_000;
const now = '2026-01-01T00:00:00.000Z';

describe(`migration 0006 (money as 64-bit integers) on ${ENGINE}`, () => {
  let steps: StepDatabase;
  let db: Db;
  before(async () => {
    steps = await openStepDatabase();
    db = steps.db;
  });
  after(() => steps.close());

  it('keeps the money of a database made before it, then stores and reads back amounts above 2^31 as numbers', async () => {
    await steps.migrateTo('0005_community');
    await db
      .insertInto('schools')
      .values({
        id: 'sch_1',
        name: 'S',
        subdomain: 's',
        locale: 'en',
        timezone: 'UTC',
        currency: 'EUR',
        contact_email: null,
        beta_features: '[]',
        created_at: now,
        updated_at: now,
      })
      .execute();
    const course = (id: string, price: number) => ({
      id,
      school_id: 'sch_1',
      slug: id,
      title: id,
      description: '',
      status: 'draft' as const,
      price_amount: price,
      currency: 'EUR',
      image_url: null,
      published_at: null,
      created_at: now,
      updated_at: now,
    });
    await db.insertInto('courses').values(course('old', 4900)).execute();

    // 0006 runs first over the 0005 database, then every later migration (listed, not guessed).
    const later = migrationsAfter('0005_community');
    assert.equal(later[0], '0006_bigint_amounts');
    assert.deepEqual(await migrateToLatest(db), later);

    await db
      .insertInto('courses')
      .values([course('big', BIG), course('max', MAX_AMOUNT)])
      .execute();
    const rows = await db.selectFrom('courses').select(['id', 'price_amount']).orderBy('id').execute();
    assert.deepEqual(
      rows.map((r) => ({ ...r })),
      [
        { id: 'big', price_amount: BIG },
        { id: 'max', price_amount: MAX_AMOUNT },
        { id: 'old', price_amount: 4900 },
      ],
    );
    const sum = await db
      .selectFrom('courses')
      .select(sql<number>`sum(price_amount)`.as('total'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(sum.total), BIG + MAX_AMOUNT + 4900);
  });

  it('every money column is a 64-bit integer on this engine', async () => {
    for (const [table, columns] of Object.entries(MONEY_COLUMNS)) {
      for (const column of columns) {
        // Asked of this schema only: catalogue-wide introspection races other runs' dropped schemas.
        const type =
          ENGINE === 'postgres'
            ? (
                await sql<{ type: string }>`select data_type as type from information_schema.columns
                  where table_schema = current_schema() and table_name = ${table} and column_name = ${column}`.execute(
                  db,
                )
              ).rows[0]?.type
            : (
                await sql<{
                  type: string;
                }>`select type from pragma_table_info(${table}) where name = ${column}`.execute(db)
              ).rows[0]?.type;
        // SQLite's INTEGER always holds up to 8 bytes; PostgreSQL's money columns are now bigint.
        assert.equal(type?.toLowerCase(), ENGINE === 'postgres' ? 'bigint' : 'integer', `${table}.${column}`);
      }
    }
  });
});
