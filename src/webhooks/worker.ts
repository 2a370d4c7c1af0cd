import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Db } from '../store/database.ts';
import { isoNow, nowMs } from '../store/time.ts';
import { type ClaimedDelivery, claimDue, releaseLeases, renewLease } from './claim.ts';
import { liveSecrets } from './endpoints.ts';
import { judge, notifyOwners, recordOutcome } from './outcome.ts';
import { postWebhook, type WebhookFetchOptions } from './post.ts';
import { webhookHeaders } from './signing.ts';

/** What the delivery worker runs with. `now` and `random` are injectable so tests drive time. */
export interface WorkerOptions {
  readonly db: Db;
  readonly logger: Logger;
  readonly config: Config;
  readonly mailer: Mailer;
  readonly now?: () => number;
  readonly random?: () => number;
  readonly fetch?: WebhookFetchOptions;
  /** Names this instance in leases; random by default. */
  readonly instanceId?: string;
  /** Deliveries leased per round. */
  readonly batchSize?: number;
  /** Endpoints called at once; one slow endpoint holds one slot, never the others. */
  readonly concurrency?: number;
}

export interface WebhookWorker {
  readonly instanceId: string;
  /** One round: lease what is due, attempt it, record the outcomes. Resolves with the attempts made. */
  runOnce(): Promise<number>;
  /** Runs rounds until stopped, pausing `idleMs` whenever nothing was due. */
  start(idleMs?: number): void;
  /** Ends the loop after the round in flight. */
  stop(): Promise<void>;
}

/**
 * Extra lease time beyond the request timeout, for the bookkeeping around an attempt. Short, so
 * that the leases of an instance that died (kill -9) run out soon; each attempt renews its own
 * lease first, and a lease taken over by another instance is never attempted twice (renewLease).
 */
const LEASE_MARGIN_MS = 10_000;

/**
 * The webhook delivery worker (issue #13 point 4): at least once, oldest first per endpoint,
 * retried on the Standard Webhooks schedule, leased so that with several instances on one
 * database each attempt is made by one of them. Rows are the state: a restart (or a kill -9)
 * loses nothing, and a lease left by a dead instance simply runs out.
 */
export function createWebhookWorker(options: WorkerOptions): WebhookWorker {
  const clock = options.now ?? nowMs;
  const random = options.random ?? Math.random;
  const instanceId = options.instanceId ?? `wkr_${randomBytes(6).toString('hex')}`;
  const { db, config, logger } = options;
  const leaseMs = config.webhooks.timeoutMs + LEASE_MARGIN_MS;
  const disableAfterMs = config.webhooks.disableAfterDays * 86_400_000;
  let running: Promise<void> | undefined;
  let stopped = true;
  let wake: (() => void) | undefined;

  async function attempt(delivery: ClaimedDelivery): Promise<boolean> {
    const now = clock();
    if (!(await renewLease(db, delivery.id, instanceId, now + leaseMs))) return true;
    const [event, endpoint] = await Promise.all([
      db
        .selectFrom('domain_events')
        .selectAll()
        .where('school_id', '=', delivery.school_id)
        .where('id', '=', delivery.event_id)
        .executeTakeFirst(),
      db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('id', '=', delivery.endpoint_id)
        .executeTakeFirst(),
    ]);
    if (!event || !endpoint || endpoint.enabled !== 1) {
      await releaseLeases(db, [delivery.id], instanceId);
      return true;
    }
    // The thin Standard Webhooks payload: the type, when it happened, and the event's small data.
    const body = JSON.stringify({
      type: event.type,
      timestamp: event.occurred_at,
      data: JSON.parse(event.data),
    });
    const timestamp = Math.floor(now / 1000);
    const headers = webhookHeaders(
      liveSecrets(endpoint, config.secret, isoNow(now)),
      event.id,
      timestamp,
      body,
    );
    const result = await postWebhook(new URL(endpoint.url), headers, body, {
      timeoutMs: config.webhooks.timeoutMs,
      allowLoopbackHttp: config.webhooks.allowLoopbackHttp,
      fetch: options.fetch,
      now: clock,
    });
    const attempts = delivery.attempts + 1;
    const decidedAt = clock();
    const verdict = judge(result, attempts, endpoint.failing_since, decidedAt, disableAfterMs, random());
    await recordOutcome(db, delivery, event, result, verdict, attempts, decidedAt);
    if (verdict.disable) {
      logger.warn({ endpointId: endpoint.id, reason: verdict.disable }, 'webhook endpoint disabled');
      await notifyOwners(db, options.mailer, logger, delivery.school_id, endpoint.id, config.baseUrl);
    }
    return verdict.delivered;
  }

  /** One endpoint's deliveries in order; after a failure the rest wait for the next round. */
  async function drainEndpoint(deliveries: ClaimedDelivery[]): Promise<number> {
    let made = 0;
    for (let i = 0; i < deliveries.length; i++) {
      made++;
      const ok = await attempt(deliveries[i]).catch((err: unknown) => {
        logger.error({ err, deliveryId: deliveries[i].id }, 'webhook attempt failed unexpectedly');
        return false;
      });
      if (!ok) {
        await releaseLeases(
          db,
          deliveries.slice(i + 1).map((d) => d.id),
          instanceId,
        );
        break;
      }
    }
    return made;
  }

  async function runOnce(): Promise<number> {
    const now = clock();
    const claimed = await claimDue(db, instanceId, now, now + leaseMs, options.batchSize ?? 100);
    const byEndpoint = new Map<string, ClaimedDelivery[]>();
    for (const d of claimed) byEndpoint.set(d.endpoint_id, [...(byEndpoint.get(d.endpoint_id) ?? []), d]);
    const queues = [...byEndpoint.values()];
    let made = 0;
    const lanes = Array.from({ length: Math.min(options.concurrency ?? 8, queues.length) }, async () => {
      for (let q = queues.shift(); q; q = queues.shift()) {
        const count = await drainEndpoint(q);
        made += count;
      }
    });
    await Promise.all(lanes);
    return made;
  }

  async function loop(idleMs: number): Promise<void> {
    while (!stopped) {
      let made = 0;
      try {
        made = await runOnce();
      } catch (err) {
        logger.warn({ err }, 'webhook round failed; it will run again');
      }
      if (made === 0 && !stopped) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, idleMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    }
  }

  return {
    instanceId,
    runOnce,
    start(idleMs = 1000) {
      if (!stopped) return;
      stopped = false;
      running = loop(idleMs);
    },
    async stop() {
      stopped = true;
      wake?.();
      await running;
    },
  };
}
