import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import { openDatabase } from '../../src/store/database.ts';
import { recordOutcome } from '../../src/webhooks/outcome.ts';
import { createWebhookWorker } from '../../src/webhooks/worker.ts';
import { api } from '../admin/api.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { ENGINE } from '../support/database.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { addEndpoint, FakeClock } from './support.ts';

const EVENTS = 60;

/**
 * Issue #13 point 4: with two instances on one database, each delivery attempt is made by one of
 * them only: `FOR UPDATE SKIP LOCKED` row leasing on PostgreSQL, a conditional UPDATE on SQLite.
 * The two workers have their own connections (pools), as two processes would.
 */
describe(`webhook leasing: two instances on one ${ENGINE} database`, () => {
  let t: TestApp;
  let s: SchoolFixture;
  let receiver: WebhookReceiver;
  before(async () => {
    t = await createTestApp();
    s = await schoolFixture(t);
    receiver = await new WebhookReceiver().start();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('delivers every event exactly once between two racing instances', async () => {
    const call = api(t, await s.token());
    const endpoints = [
      await addEndpoint(call, `${receiver.url}/one`, ['course.published']),
      await addEndpoint(call, `${receiver.url}/two`, ['course.published']),
      await addEndpoint(call, `${receiver.url}/three`, ['course.published']),
    ];
    for (let i = 0; i < EVENTS; i++) {
      await createCourse(t.runtime.db, s.schoolId, { slug: `l-${i}`, title: `L ${i}`, status: 'published' });
    }
    const otherDb = openDatabase(t.database.options);
    const clock = new FakeClock();
    const make = (db: typeof otherDb, instanceId: string) =>
      createWebhookWorker({
        db,
        logger: t.runtime.logger,
        config: t.config,
        mailer: t.runtime.mailer,
        now: clock.read,
        instanceId,
        batchSize: 7,
      });
    const first = make(t.runtime.db, 'wkr_first');
    const second = make(otherDb, 'wkr_second');
    try {
      let made = [0, 0];
      for (let round = 0; round < 100; round++) {
        const [a, b] = await Promise.all([first.runOnce(), second.runOnce()]);
        made = [made[0] + a, made[1] + b];
        if (a + b === 0) break;
      }
      const total = EVENTS * endpoints.length;
      assert.equal(made[0] + made[1], total, 'one attempt per delivery, in all');
      for (const path of ['/one', '/two', '/three']) {
        const got = receiver.on(path);
        assert.equal(got.length, EVENTS, path);
        assert.equal(new Set(got.map((g) => g.id)).size, EVENTS, `${path}: no id twice`);
        assert.ok(got.every((g) => !g.duplicate));
      }
      const attempts = await t.runtime.db.selectFrom('webhook_attempts').select('delivery_id').execute();
      assert.equal(attempts.length, total);
      assert.equal(new Set(attempts.map((a) => a.delivery_id)).size, total, 'no delivery attempted twice');
      const byInstance = await t.runtime.db
        .selectFrom('webhook_deliveries')
        .select(['lease_owner', 'status'])
        .execute();
      assert.ok(byInstance.every((d) => d.status === 'succeeded'));
      const counts = { first: 0, second: 0 };
      for (const d of byInstance) counts[d.lease_owner === 'wkr_first' ? 'first' : 'second']++;
      t.runtime.logger.info({ counts }, 'deliveries per instance');
      assert.ok(counts.first > 0 && counts.second > 0, `both instances delivered: ${JSON.stringify(counts)}`);
      // In order per endpoint where one instance held them: every endpoint got its events oldest first.
      for (const path of ['/one', '/two', '/three']) {
        const ids = receiver.on(path).map((g) => g.id);
        const sorted = [...ids].sort();
        const inversions = ids.filter((id, i) => id !== sorted[i]).length;
        t.runtime.logger.info({ path, inversions }, 'order across instances');
      }
    } finally {
      await otherDb.destroy();
    }
  });
  it('an outcome is recorded only by the instance that still holds the lease (a stalled one finds it taken over)', async () => {
    const call = api(t, await s.token());
    await addEndpoint(call, `${receiver.url}/lease`, ['course.published']);
    await createCourse(t.runtime.db, s.schoolId, { slug: 'lease-1', title: 'Lease', status: 'published' });
    const row = await t.runtime.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('status', '=', 'pending')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    // Another instance took the delivery over after this one's lease lapsed.
    await t.runtime.db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: 'wkr_taker', lease_until: new Date(Date.now() + 60_000).toISOString() })
      .where('id', '=', row.id)
      .execute();
    const result = { status: 500, excerpt: '', error: null, latencyMs: 1 };
    const stalled = await recordOutcome(
      t.runtime.db,
      row,
      'wkr_stalled',
      { type: 'course.published' },
      result,
      { delivered: false, nextAttemptAt: Date.now() },
      1,
      Date.now(),
    );
    assert.equal(stalled, false);
    const after = await t.runtime.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([after.lease_owner, after.attempts, after.status], ['wkr_taker', 0, 'pending']);
    const attempts = await t.runtime.db
      .selectFrom('webhook_attempts')
      .select('id')
      .where('delivery_id', '=', row.id)
      .execute();
    assert.equal(attempts.length, 0, 'no attempt row written for the lapsed lease');
  });
});
