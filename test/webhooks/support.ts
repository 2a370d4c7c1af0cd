import { createWebhookWorker, type WebhookWorker, type WorkerOptions } from '../../src/webhooks/worker.ts';
import type { api } from '../admin/api.ts';
import type { TestApp } from '../support/app.ts';

/**
 * A hand-moved clock: tests advance it instead of waiting. It starts a minute ahead of real time,
 * so events recorded (on real time) during a test are already due on it.
 */
export class FakeClock {
  now: number;
  constructor(start = Date.now() + 60_000) {
    this.now = start;
  }
  advance(ms: number): number {
    this.now += ms;
    return this.now;
  }
  readonly read = () => this.now;
}

/** A worker on the test app's database, on the fake clock, with jitter pinned to none. */
export function testWorker(t: TestApp, clock: FakeClock, extra: Partial<WorkerOptions> = {}): WebhookWorker {
  return createWebhookWorker({
    db: t.runtime.db,
    logger: t.runtime.logger,
    config: t.config,
    mailer: t.runtime.mailer,
    now: clock.read,
    random: () => 0.5,
    ...extra,
  });
}

/** Adds an endpoint through the admin API; returns its id and secret. */
export async function addEndpoint(
  call: ReturnType<typeof api>,
  url: string,
  eventTypes: string[] = ['*'],
): Promise<{ id: string; secret: string }> {
  const r = await call('POST', '/api/v1/webhook-endpoints', { url, event_types: eventTypes });
  if (r.status !== 201) throw new Error(`endpoint not created: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: r.body.id, secret: r.body.secret };
}
