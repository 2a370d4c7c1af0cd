import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSchool } from '../../src/domain/school/schools.ts';
import { type Db, migrateToLatest } from '../../src/store/database.ts';
import { ENGINE } from '../support/database.ts';
import { migrationsAfter, openStepDatabase, type StepDatabase } from '../support/migration-steps.ts';

const now = '2026-01-01T00:00:00.000Z';

describe(`migration 0014 (school site) on ${ENGINE}`, () => {
  let steps: StepDatabase;
  let db: Db;
  before(async () => {
    steps = await openStepDatabase();
    db = steps.db;
  });
  after(() => steps.close());

  it('closes sign-up at the schools of before (they took people by invitation only); a new school starts open', async () => {
    await steps.migrateTo('0013_fan_out_rule');
    const school = (id: string, subdomain: string) => ({
      id,
      name: subdomain,
      subdomain,
      locale: 'en',
      timezone: 'UTC',
      currency: 'EUR',
      contact_email: null,
      beta_features: '[]',
      created_at: now,
      updated_at: now,
    });
    await db
      .insertInto('schools')
      .values([school('sch_old1', 'old-one'), school('sch_old2', 'old-two')])
      .execute();

    const later = migrationsAfter('0013_fan_out_rule');
    assert.equal(later[0], '0014_school_site');
    assert.deepEqual(await migrateToLatest(db), later);

    const rows = await db.selectFrom('schools').select(['id', 'signup_open']).orderBy('id').execute();
    assert.deepEqual(
      rows.map((r) => [r.id, Number(r.signup_open)]),
      [
        ['sch_old1', 0],
        ['sch_old2', 0],
      ],
    );
    // A school founded after the upgrade, through the domain or a bare insert, starts open.
    const founded = await createSchool(db, { name: 'New', subdomain: 'new-school' });
    await db.insertInto('schools').values(school('sch_bare', 'bare')).execute();
    const fresh = await db
      .selectFrom('schools')
      .select(['id', 'signup_open'])
      .where('id', 'in', [founded.id, 'sch_bare'])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      fresh.map((r) => Number(r.signup_open)),
      [1, 1],
    );
  });
});
