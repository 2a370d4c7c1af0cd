import { purgeExpired } from './oauth/housekeeping.ts';
import type { Runtime } from './runtime.ts';
import { eventHousekeeping } from './webhooks/housekeeping.ts';
import { createWebhookWorker, type WebhookWorker } from './webhooks/worker.ts';

/** How often housekeeping runs: expired codes, tokens and sessions; expiries, period ends, retention. */
const HOUSEKEEPING_EVERY_MS = 15 * 60_000;

/** The background work of a process: housekeeping, and the webhook worker when asked. */
export interface Background {
  readonly worker?: WebhookWorker;
  /** Stops the timers and the worker, and waits for the work in flight. */
  stop(): Promise<void>;
}

/**
 * Starts housekeeping now and every 15 minutes, and (with `worker`) the webhook delivery worker.
 * `lectern serve` runs both unless WEBHOOK_WORKER=false; `lectern worker` runs them without HTTP.
 */
export function startBackground(runtime: Runtime, options: { worker: boolean }): Background {
  const { db, logger } = runtime;
  let running: Promise<void> | undefined;
  const housekeep = () => {
    running ??= (async () => {
      const purged = await purgeExpired(db, runtime.clock.now());
      if (Object.values(purged).some((n) => n > 0)) logger.info({ purged }, 'expired rows deleted');
      const events = await eventHousekeeping(db, runtime.config, runtime.clock.now());
      const { canceled, pastDue } = events.subscriptions;
      if (events.expired + canceled + pastDue + events.events + events.attempts + events.deliveries > 0) {
        logger.info({ events }, 'event housekeeping done');
      }
    })()
      .catch((err) => logger.warn({ err }, 'housekeeping failed; it will run again'))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(housekeep, HOUSEKEEPING_EVERY_MS);
  timer.unref();
  housekeep();
  const worker = options.worker
    ? createWebhookWorker({
        db,
        logger,
        config: runtime.config,
        mailer: runtime.mailer,
        now: () => runtime.clock.now(),
      })
    : undefined;
  worker?.start();
  return {
    worker,
    async stop() {
      clearInterval(timer);
      await worker?.stop();
      await running;
    },
  };
}
