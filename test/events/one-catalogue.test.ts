/**
 * One catalogue of event names, one subscription rule, and each feature's own housekeeping: the
 * security log's names come from the event catalogue, the fan-out trigger's SQL from the rule
 * patternsMatch evaluates, and the runtime assembles the jobs each feature declares.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { HOUSEKEEPING_JOBS } from '../../src/background.ts';
import { jobs as commerceJobs } from '../../src/domain/commerce/jobs.ts';
import { jobs as learningJobs } from '../../src/domain/learning/jobs.ts';
import { jobs as schoolJobs } from '../../src/domain/school/jobs.ts';
import { EVENT_CATALOGUE, EVENT_TYPES, SECURITY_EVENTS } from '../../src/events/catalogue.ts';
import { jobs as eventJobs } from '../../src/events/jobs.ts';
import { EVENT_DATA_SCHEMAS } from '../../src/events/payloads.ts';
import { jobs as oauthJobs } from '../../src/oauth/jobs.ts';
import { type Db, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { subscribedSql } from '../../src/webhooks/fan-out.ts';
import { jobs as webhookJobs } from '../../src/webhooks/jobs.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../support/database.ts';

describe('one catalogue of event names', () => {
  it('logs the catalogue’s names: its log-only entries and the domain types marked securityLog', () => {
    const shared = SECURITY_EVENTS.filter((n) => (EVENT_TYPES as readonly string[]).includes(n));
    assert.deepEqual(shared.sort(), EVENT_TYPES.filter((t) => 'securityLog' in EVENT_CATALOGUE[t]).sort());
    assert.ok(shared.includes('member.role_changed'), 'a role change has one name in the log and the trail');
    for (const name of SECURITY_EVENTS.filter((n) => !shared.includes(n))) {
      assert.ok(!Object.hasOwn(EVENT_DATA_SCHEMAS, name), `${name} is log-only: no domain event, no schema`);
    }
  });

  it('has no near twins (names equal but for a plural)', () => {
    const names = [...new Set([...EVENT_TYPES, ...SECURITY_EVENTS])];
    const singular = (n: string) => n.replace(/s(?=[._]|$)/g, '');
    const seen = new Map<string, string>();
    for (const n of names) {
      const twin = seen.get(singular(n));
      assert.equal(twin, undefined, `${n} and ${twin} name one thing twice`);
      seen.set(singular(n), n);
    }
  });
});

describe('housekeeping jobs', () => {
  it('are each feature’s own, assembled once by the runtime', () => {
    assert.deepEqual(HOUSEKEEPING_JOBS, [
      ...oauthJobs,
      ...learningJobs,
      ...commerceJobs,
      ...webhookJobs,
      ...eventJobs,
      ...schoolJobs,
    ]);
    const names = HOUSEKEEPING_JOBS.map((j) => j.name);
    assert.equal(new Set(names).size, names.length, 'each job has its own name');
  });

  it('nothing in webhooks/ runs learning or commerce work, and the outbox writes only its own table', () => {
    const dir = new URL('../../src/webhooks/', import.meta.url);
    for (const file of readdirSync(dir)) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      assert.doesNotMatch(text, /domain\/(learning|commerce)\//, `webhooks/${file}`);
    }
    const outbox = readFileSync(new URL('../../src/events/outbox.ts', import.meta.url), 'utf8');
    assert.doesNotMatch(outbox, /webhook_deliveries|webhook_endpoints/);
  });
});

describe(`the fan-out trigger on ${ENGINE}`, () => {
  let database: TestDatabase;
  let db: Db;
  before(async () => {
    database = await createTestDatabase();
    db = openDatabase(database.options);
    await migrateToLatest(db);
  });
  after(async () => {
    await db.destroy();
    await database.drop();
  });

  it('matches with the SQL generated from the catalogue’s subscription rule', async () => {
    const body =
      ENGINE === 'postgres'
        ? (
            await sql<{ body: string }>`select prosrc as body from pg_proc
              where proname = 'domain_events_fan_out' and pronamespace = current_schema()::regnamespace`.execute(
              db,
            )
          ).rows
        : (
            await sql<{ body: string }>`select sql as body from sqlite_master
              where type = 'trigger' and name = 'domain_events_fan_out'`.execute(db)
          ).rows;
    assert.equal(body.length, 1, 'one fan-out trigger');
    assert.ok(body[0].body.includes(subscribedSql(ENGINE)), body[0].body);
  });
});
