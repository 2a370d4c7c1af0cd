import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Db, migrateToLatest } from '../../src/store/database.ts';
import { ENGINE } from '../support/database.ts';
import { migrationsAfter, openStepDatabase, type StepDatabase } from '../support/migration-steps.ts';

const now = '2026-01-01T00:00:00.000Z';

describe(`migration 0007 (invitations) on ${ENGINE}`, () => {
  let steps: StepDatabase;
  let db: Db;
  before(async () => {
    steps = await openStepDatabase();
    db = steps.db;
  });
  after(() => steps.close());

  it('turns the `invited` memberships of before into pending invitations nobody holds a link to, keeping active ones', async () => {
    await steps.migrateTo('0006_bigint_amounts');
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
    const user = (id: string, email: string, passwordHash: string | null) => ({
      id,
      email,
      name: id,
      password_hash: passwordHash,
      created_at: now,
      updated_at: now,
    });
    await db
      .insertInto('users')
      .values([user('usr_owner', 'owner@s.test', 'hash'), user('usr_ada', 'ada@s.test', null)])
      .execute();
    const membership = (id: string, userId: string, roles: string, status: 'active' | 'invited') => ({
      id,
      school_id: 'sch_1',
      user_id: userId,
      roles,
      status,
      invited_by_user_id: status === 'invited' ? 'usr_owner' : null,
      created_at: now,
      updated_at: now,
    });
    await db
      .insertInto('memberships')
      .values([
        membership('mem_owner', 'usr_owner', '["owner"]', 'active'),
        membership('mem_ada', 'usr_ada', '["lecturer"]', 'invited'),
      ])
      .execute();

    // 0007 runs first over the 0006 database, then every later migration (listed, not guessed).
    const later = migrationsAfter('0006_bigint_amounts');
    assert.equal(later[0], '0007_invitations');
    assert.deepEqual(await migrateToLatest(db), later);

    const memberships = await db.selectFrom('memberships').select(['id', 'status']).execute();
    assert.deepEqual(
      memberships.map((m) => ({ ...m })),
      [{ id: 'mem_owner', status: 'active' }],
    );
    const invitations = await db.selectFrom('invitations').selectAll().execute();
    assert.equal(invitations.length, 1);
    const [inv] = invitations;
    assert.equal(inv.school_id, 'sch_1');
    assert.equal(inv.email, 'ada@s.test');
    assert.equal(inv.roles, '["lecturer"]');
    assert.equal(inv.invited_by_user_id, 'usr_owner');
    assert.match(inv.token_hash, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(inv.accepted_at, null);
    assert.equal(inv.revoked_at, null);
    assert.ok(inv.expires_at > new Date().toISOString(), 'pending: an operator resends it for a link');
  });
});
