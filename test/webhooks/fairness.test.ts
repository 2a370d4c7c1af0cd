import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClaimBounds, chooseRuns, type DueDelivery } from '../../src/webhooks/fairness.ts';
import { createWebhookWorker, type WebhookWorker } from '../../src/webhooks/worker.ts';
import { api } from '../admin/api.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { ENGINE } from '../support/database.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { addEndpoint, HangingReceiver, waitUntil } from './support.ts';

/** The attempt's timeout here: short enough to keep the test quick, long enough for a loaded machine. */
const TIMEOUT_SECONDS = 8;
const HANGING_ENDPOINTS = 19;
const COUPONS = 10;
/** The lanes one school may hold on a worker (DEFAULT_PER_SCHOOL). */
const SCHOOL_SHARE = 8;

/**
 * One school's endpoints that never answer must not delay another school's deliveries: each
 * endpoint has its own lane, and one school holds only its share of the lanes.
 */
describe(`webhook fairness across schools and endpoints (${ENGINE})`, () => {
  let t: TestApp;
  let demo: SchoolFixture;
  let other: SchoolFixture;
  let hanging: HangingReceiver;
  let healthy: WebhookReceiver;
  let worker: WebhookWorker | undefined;
  before(async () => {
    t = await createTestApp({ WEBHOOK_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS) });
    demo = await schoolFixture(t, 'Demo Academy');
    other = await schoolFixture(t, 'Other School');
    hanging = await new HangingReceiver().start();
    healthy = await new WebhookReceiver().start();
  });
  after(async () => {
    // Closing the hanging receiver first ends the attempts still waiting on it at once.
    await hanging.close();
    await worker?.stop();
    await healthy.close();
    await t.close();
  });

  it('delivers a school’s event while another school’s endpoints hang, before any hanging attempt times out', async (ctx) => {
    const otherCall = api(t, await other.token());
    const demoCall = api(t, await demo.token());
    for (let i = 0; i < HANGING_ENDPOINTS; i++)
      await addEndpoint(otherCall, `${hanging.url}/h${i}`, ['coupon.*']);
    for (let i = 0; i < COUPONS; i++) {
      const r = await otherCall('POST', '/api/v1/coupons', {
        code: `HANG${i}`,
        kind: 'percent',
        percent_off: 10,
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const demoEndpoint = await addEndpoint(demoCall, `${healthy.url}/demo`, ['course.published']);
    worker = createWebhookWorker({
      db: t.runtime.db,
      logger: t.runtime.logger,
      config: t.config,
      mailer: t.runtime.mailer,
    });
    worker.start(50);
    // Other School holds every lane it may (a worker gives one school 8) before Demo Academy's event.
    await waitUntil(
      () => hanging.connections >= SCHOOL_SHARE,
      30_000,
      'the attempts to the hanging endpoints',
    );
    const firstHang = hanging.firstAt ?? Date.now();
    const published = await demoCall('POST', '/api/v1/courses', {
      slug: 'fair',
      title: 'Fair',
      status: 'published',
    });
    assert.equal(published.status, 201);
    const asked = Date.now();
    // The first hanging attempt started before its connection came, so it times out by then at the latest.
    const firstTimeout = firstHang + TIMEOUT_SECONDS * 1000;
    await waitUntil(
      () => healthy.on('/demo').length > 0,
      Math.max(0, firstTimeout - Date.now()),
      `Demo Academy's delivery before Other School's first hanging attempt could time out (${hanging.connections} hanging connections)`,
    );
    ctx.diagnostic(
      `healthy delivery ${Date.now() - asked} ms after its event; ${hanging.connections} hanging attempts in flight`,
    );
    assert.equal(healthy.on('/demo')[0].json.type, 'course.published');
    assert.ok(hanging.connections <= SCHOOL_SHARE, `one school held ${hanging.connections} lanes`);
    // The same, in the database's own record: Demo's attempt was written while every attempt to
    // the hanging endpoints was still in flight (none of them has ended yet).
    const demoAttempt = () =>
      t.runtime.db
        .selectFrom('webhook_attempts')
        .select('attempted_at')
        .where('endpoint_id', '=', demoEndpoint.id)
        .executeTakeFirst();
    await waitUntil(
      async () => (await demoAttempt()) !== undefined,
      10_000,
      "Demo Academy's attempt recorded",
    );
    const recordedAt = (await demoAttempt())?.attempted_at ?? '';
    const otherEnded = await t.runtime.db
      .selectFrom('webhook_attempts')
      .select('id')
      .where('school_id', '=', other.schoolId)
      .where('attempted_at', '<=', recordedAt)
      .execute();
    assert.equal(otherEnded.length, 0, 'no hanging attempt ended before the healthy delivery');
  });
});

describe('webhook fairness: who gets the free lanes (chooseRuns)', () => {
  let n = 0;
  /** `count` due deliveries for each endpoint, ids in creation order across the list. */
  const due = (...endpoints: Array<[school: string, endpoint: string, count: number]>): DueDelivery[] =>
    endpoints.flatMap(([school, endpoint, count]) =>
      Array.from({ length: count }, () => ({
        id: `whd_${String(++n).padStart(4, '0')}`,
        school_id: school,
        endpoint_id: endpoint,
      })),
    );
  const bounds = (over: Partial<ClaimBounds> = {}): ClaimBounds => ({
    lanes: 32,
    perSchool: 8,
    batch: 100,
    inFlight: new Map(),
    ...over,
  });
  const endpointsOf = (runs: DueDelivery[][]) => runs.map((r) => r[0].endpoint_id);

  it('gives one school at most its share of the lanes, and the rest to the others', () => {
    const hanging = Array.from({ length: 19 }, (_, i): [string, string, number] => ['other', `h${i}`, 10]);
    const runs = chooseRuns([...due(...hanging), ...due(['demo', 'fine', 1])], bounds());
    assert.equal(runs.filter((r) => r[0].school_id === 'other').length, 8);
    assert.ok(endpointsOf(runs).includes('fine'));
  });

  it('leaves out a school already at its share, and gives a free lane to the school with fewest in flight', () => {
    const rows = due(['a', 'a1', 1], ['a', 'a2', 1], ['b', 'b1', 1], ['c', 'c1', 1]);
    assert.deepEqual(endpointsOf(chooseRuns(rows, bounds({ perSchool: 2, inFlight: new Map([['a', 2]]) }))), [
      'b1',
      'c1',
    ]);
    assert.deepEqual(
      endpointsOf(chooseRuns(rows, bounds({ lanes: 1, inFlight: new Map([['a', 1]]) }))),
      ['b1'],
      'b and c have none in flight, and b has waited longer',
    );
    assert.deepEqual(
      endpointsOf(
        chooseRuns(
          rows,
          bounds({
            lanes: 1,
            inFlight: new Map([
              ['a', 1],
              ['b', 1],
            ]),
          }),
        ),
      ),
      ['c1'],
    );
  });

  it('keeps each endpoint’s deliveries in order and shares a small batch one delivery per endpoint', () => {
    const rows = due(['a', 'a1', 5], ['a', 'a2', 5], ['b', 'b1', 5]);
    const runs = chooseRuns(rows, bounds({ batch: 7 }));
    assert.deepEqual(
      runs.map((r) => r.length),
      [3, 2, 2],
    );
    for (const run of runs)
      assert.deepEqual(
        run,
        [...run].sort((x, y) => (x.id < y.id ? -1 : 1)),
      );
  });
});
