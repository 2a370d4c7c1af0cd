import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { jobs as commerceJobs } from './domain/commerce/jobs.ts';
import { jobs as learningJobs } from './domain/learning/jobs.ts';
import { jobs as schoolJobs } from './domain/school/jobs.ts';
import { jobs as eventJobs } from './events/jobs.ts';
import { jobs as oauthJobs } from './oauth/jobs.ts';
import type { Runtime } from './runtime.ts';
import type { Db } from './store/database.ts';
import type { HousekeepingJob } from './store/housekeeping.ts';
import { nowMs } from './store/time.ts';
import { jobs as webhookJobs } from './webhooks/jobs.ts';
import { createWebhookWorker, type WebhookWorker } from './webhooks/worker.ts';

/** How often housekeeping runs. */
const HOUSEKEEPING_EVERY_MS = 15 * 60_000;

/**
 * Every feature's housekeeping jobs, each declared by its feature (`jobs.ts`), run in this order:
 * expired codes, tokens and sessions; enrollment expiries; subscription period ends; the delivery
 * log; the audit trail's retention; the file store's orphans.
 */
export const HOUSEKEEPING_JOBS: readonly HousekeepingJob[] = [
  ...oauthJobs,
  ...learningJobs,
  ...commerceJobs,
  ...webhookJobs,
  ...eventJobs,
  ...schoolJobs,
];

/**
 * Runs each job once at `now`, in turn; what each changed, by job name. With a logger, a job that
 * changed something logs it, and one that fails is logged and skipped (it runs again next time);
 * without one, a failure throws.
 */
export async function runHousekeeping(
  db: Db,
  config: Config,
  now: number = nowMs(),
  logger?: Logger,
  jobs: readonly HousekeepingJob[] = HOUSEKEEPING_JOBS,
): Promise<Record<string, Record<string, number>>> {
  const done: Record<string, Record<string, number>> = {};
  for (const job of jobs) {
    try {
      done[job.name] = await job.run(db, now, config);
    } catch (err) {
      if (!logger) throw err;
      logger.warn({ err, job: job.name }, 'housekeeping job failed; it will run again');
      continue;
    }
    if (Object.values(done[job.name]).some((n) => n > 0)) {
      logger?.info({ job: job.name, done: done[job.name] }, 'housekeeping done');
    }
  }
  return done;
}

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
    running ??= runHousekeeping(db, runtime.config, runtime.clock.now(), logger)
      .then(() => undefined)
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
