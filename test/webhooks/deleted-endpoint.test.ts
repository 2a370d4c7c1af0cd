import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api } from '../admin/api.ts';
import { ENGINE } from '../support/database.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { addEndpoint, FakeClock, GatedReceiver, testWorker } from './support.ts';

/** pino's level number for `error`; `fatal` is above it. */
const ERROR_LEVEL = 50;

/**
 * An operator may delete an endpoint while an attempt to it is out. The worker finds nothing left
 * to record the outcome on, and says so quietly: no error-level line, no unhandled rejection.
 */
describe(`webhook endpoint deleted during an attempt (${ENGINE})`, () => {
  let t: LoggedTestApp;
  let s: SchoolFixture;
  let receiver: GatedReceiver;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  before(async () => {
    t = await createLoggedTestApp({ WEBHOOK_TIMEOUT_SECONDS: '30' });
    s = await schoolFixture(t);
    receiver = await new GatedReceiver().start();
    process.on('unhandledRejection', onRejection);
  });
  after(async () => {
    process.off('unhandledRejection', onRejection);
    await receiver.close();
    await t.close();
  });

  it('drops the attempt quietly when its endpoint is deleted while the request is out', async () => {
    const call = api(t, await s.token());
    const ep = await addEndpoint(call, `${receiver.url}/slow`, ['course.published']);
    const published = await call('POST', '/api/v1/courses', {
      slug: 'gone',
      title: 'Gone',
      status: 'published',
    });
    assert.equal(published.status, 201);
    const worker = testWorker(t, new FakeClock());
    const round = worker.runOnce();
    await receiver.firstRequest();
    const deleted = await call('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
    assert.equal(deleted.status, 204);
    receiver.release();
    assert.equal(await round, 1, 'the attempt was made');
    // A turn of the event loop for any rejection left behind to surface.
    await new Promise((resolve) => setImmediate(resolve));

    const loud = t.logs.filter((line) => Number(line.level) >= ERROR_LEVEL);
    assert.deepEqual(loud, [], 'no error-level log line');
    assert.deepEqual(rejections, [], 'no unhandled rejection');
    assert.ok(
      t.logs.some((line) => line.level === 20 && line.endpointId === ep.id),
      'a debug line says the endpoint went away',
    );
    const left = await t.runtime.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', ep.id)
      .execute();
    assert.deepEqual(left, [], 'its deliveries went with it');
    assert.equal(await worker.runOnce(), 0, 'nothing left to attempt');
  });
});
