import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Db } from '../store/database.ts';
import { isoNow, nowMs } from '../store/time.ts';
import { type ClaimedDelivery, findDue, leaseDeliveries, releaseLeases, renewLease } from './claim.ts';
import { liveSecrets } from './endpoints.ts';
import { chooseRuns } from './fairness.ts';
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
  /** Deliveries leased per claim, shared out over the endpoints it starts. */
  readonly batchSize?: number;
  /** Endpoints called at once by this instance (its lanes); each endpoint takes at most one. */
  readonly concurrency?: number;
  /** Endpoints of one school called at once by this instance: what one school's lanes are bounded by. */
  readonly perSchool?: number;
}

export interface WebhookWorker {
  readonly instanceId: string;
  /**
   * One claim: lease what is due (fairly, within the bounds), attempt it, record the outcomes.
   * Resolves with the attempts made, once every lane it started is done.
   */
  runOnce(): Promise<number>;
  /**
   * Runs until stopped: a lane that ends frees its place for the next due endpoint at once, and
   * due deliveries are looked for every `idleMs` meanwhile.
   */
  start(idleMs?: number): void;
  /** Ends the loop once the attempts in flight are done; the rest of their runs is given back. */
  stop(): Promise<void>;
}

/** Endpoints called at once by one instance. */
const DEFAULT_CONCURRENCY = 32;
/** Endpoints of one school called at once by one instance: a quarter of the lanes. */
const DEFAULT_PER_SCHOOL = 8;
/** Deliveries leased per claim. */
const DEFAULT_BATCH = 100;
/** Reads one claim makes at most when a concurrent claim takes rows it chose. */
const CLAIM_TRIES = 3;

/**
 * Extra lease time beyond the request timeout, for the bookkeeping around an attempt. Short, so
 * that the leases of an instance that died (kill -9) run out soon; each attempt renews its own
 * lease first, and a lease taken over by another instance is never attempted twice (renewLease).
 */
const LEASE_MARGIN_MS = 10_000;

/** How one attempt ended, for the lane making it. */
type Attempted = 'delivered' | 'failed' | 'skipped' | 'gone';

/**
 * The webhook delivery worker: at least once, oldest first per endpoint, retried on the Standard
 * Webhooks schedule, leased so that with several instances on one database each attempt is made
 * by one of them. Rows are the state: a restart (or a kill -9) loses nothing, and a lease left by
 * a dead instance simply runs out.
 *
 * Each endpoint with due deliveries gets a lane: its deliveries, one at a time and oldest first.
 * Lanes run side by side, up to `concurrency` on this instance and `perSchool` for one school
 * (fairness.ts decides who gets a free lane), so a slow or hanging endpoint delays only its own
 * deliveries, and one school's endpoints can hold only its share of the lanes.
 */
export function createWebhookWorker(options: WorkerOptions): WebhookWorker {
  const clock = options.now ?? nowMs;
  const random = options.random ?? Math.random;
  const instanceId = options.instanceId ?? `wkr_${randomBytes(6).toString('hex')}`;
  const { db, config, logger } = options;
  const leaseMs = config.webhooks.timeoutMs + LEASE_MARGIN_MS;
  const disableAfterMs = config.webhooks.disableAfterDays * 86_400_000;
  const lanes = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const perSchool = Math.min(lanes, Math.max(1, options.perSchool ?? DEFAULT_PER_SCHOOL));
  const batch = Math.max(1, options.batchSize ?? DEFAULT_BATCH);
  /** Endpoints with a lane running on this instance, and their schools. */
  const inFlight = new Map<string, string>();
  const pacer = createPacer();
  let running: Promise<void> | undefined;
  let halted = false;

  async function attempt(delivery: ClaimedDelivery): Promise<Attempted> {
    const now = clock();
    if (!(await renewLease(db, delivery.id, instanceId, now + leaseMs))) return 'skipped';
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
      return 'skipped';
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
    if (!(await recordOutcome(db, delivery, instanceId, event, result, verdict, attempts, decidedAt))) {
      // Deleted while the request was out (an operator's ordinary act), or the lease lapsed and
      // another instance took the delivery over: its verdict is the one that stands.
      logger.debug(
        { deliveryId: delivery.id, endpointId: endpoint.id },
        'webhook endpoint deleted during an attempt; its outcome is dropped',
      );
      return 'gone';
    }
    if (verdict.disable) {
      logger.warn({ endpointId: endpoint.id, reason: verdict.disable }, 'webhook endpoint disabled');
      await notifyOwners(db, options.mailer, logger, delivery.school_id, endpoint.id, config.baseUrl);
    }
    return verdict.delivered ? 'delivered' : 'failed';
  }

  /**
   * One endpoint's run in order. After a failure (or when the endpoint is gone, or the worker
   * stops) the rest is given back: due again at once, for this instance or another to claim.
   */
  async function drainEndpoint(run: readonly ClaimedDelivery[]): Promise<number> {
    let made = 0;
    for (let i = 0; i < run.length; i++) {
      if (halted) {
        await giveBack(run.slice(i));
        break;
      }
      made++;
      const outcome = await attempt(run[i]).catch((err: unknown): Attempted => {
        logger.error({ err, deliveryId: run[i].id }, 'webhook attempt failed unexpectedly');
        return 'failed';
      });
      if (outcome === 'failed' || outcome === 'gone') {
        await giveBack(run.slice(i + 1));
        break;
      }
    }
    return made;
  }

  function giveBack(rest: readonly ClaimedDelivery[]): Promise<void> {
    return releaseLeases(
      db,
      rest.map((d) => d.id),
      instanceId,
    );
  }

  /**
   * Leases runs for the free lanes: the endpoints fairness.ts picks among those due. Reading and
   * leasing are two statements, so a claim racing another instance's may find rows it read taken;
   * it then reads again (a few times at most) rather than leave lanes idle for a tick.
   */
  async function claim(): Promise<ClaimedDelivery[][]> {
    const taken = new Map(inFlight);
    const runs: ClaimedDelivery[][] = [];
    let leasedRows = 0;
    for (let tries = 0; tries < CLAIM_TRIES; tries++) {
      const free = lanes - taken.size;
      const left = batch - leasedRows;
      if (free <= 0 || left <= 0) break;
      const busy = countBySchool(taken);
      const now = clock();
      const due = await findDue(db, now, {
        endpoints: [...taken.keys()],
        schools: [...busy].filter(([, n]) => n >= perSchool).map(([school]) => school),
      });
      const ids = chooseRuns(due, { lanes: free, perSchool, batch: left, inFlight: busy })
        .flat()
        .map((d) => d.id);
      const leased = await leaseDeliveries(db, instanceId, ids, now, now + leaseMs);
      for (const run of groupByEndpoint(leased)) {
        runs.push(run);
        taken.set(run[0].endpoint_id, run[0].school_id);
      }
      leasedRows += leased.length;
      if (leased.length === ids.length) break;
    }
    return runs;
  }

  /** Runs one endpoint's lane; never rejects, and frees the lane (waking the loop) when done. */
  async function launch(run: readonly ClaimedDelivery[]): Promise<number> {
    const { endpoint_id: endpointId, school_id: schoolId } = run[0];
    inFlight.set(endpointId, schoolId);
    try {
      return await drainEndpoint(run);
    } catch (err) {
      logger.warn(
        { err, endpointId },
        'webhook lane failed; its deliveries are claimed again once their leases run out',
      );
      return 0;
    } finally {
      inFlight.delete(endpointId);
      pacer.nudge();
    }
  }

  async function runOnce(): Promise<number> {
    const counts = await Promise.all((await claim()).map(launch));
    return counts.reduce((sum, n) => sum + n, 0);
  }

  async function loop(idleMs: number): Promise<void> {
    const lanesRunning = new Set<Promise<number>>();
    while (!halted) {
      try {
        for (const run of await claim()) {
          const lane = launch(run);
          lanesRunning.add(lane);
          void lane.then(() => lanesRunning.delete(lane));
        }
      } catch (err) {
        logger.warn({ err }, 'webhook claim failed; it will run again');
      }
      await pacer.pause(idleMs);
    }
    await Promise.all(lanesRunning);
  }

  return {
    instanceId,
    runOnce,
    start(idleMs = 1000) {
      if (running) return;
      halted = false;
      running = loop(idleMs);
    },
    async stop() {
      halted = true;
      pacer.nudge();
      await running;
      running = undefined;
    },
  };
}

/** Endpoints in flight, counted by school. */
function countBySchool(inFlight: ReadonlyMap<string, string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const school of inFlight.values()) counts.set(school, (counts.get(school) ?? 0) + 1);
  return counts;
}

function groupByEndpoint(claimed: readonly ClaimedDelivery[]): ClaimedDelivery[][] {
  const runs = new Map<string, ClaimedDelivery[]>();
  for (const d of claimed) runs.set(d.endpoint_id, [...(runs.get(d.endpoint_id) ?? []), d]);
  return [...runs.values()];
}

/**
 * The loop's waits: `pause` ends after `ms`, or at once when a lane ended (or stop was asked)
 * since the last pause, so a freed lane is filled without waiting for the next tick.
 */
function createPacer(): { pause(ms: number): Promise<void>; nudge(): void } {
  let nudged = false;
  let wake: (() => void) | undefined;
  return {
    nudge() {
      nudged = true;
      wake?.();
    },
    pause(ms) {
      if (nudged) {
        nudged = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          nudged = false;
          resolve();
        }
        wake = done;
      });
    },
  };
}
