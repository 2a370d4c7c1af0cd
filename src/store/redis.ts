/**
 * The one Redis connection of an app (`REDIS_URL`), with the failure policy of every use of it:
 * Redis only shares counters between instances, so when it is unreachable its users fail open at
 * once instead of waiting on it. Every command is bounded by a short timeout; while the link is
 * down nothing is sent at all; ioredis keeps reconnecting in the background.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';

/** `up`: commands go out; `down`: unreachable, callers fail open at once; `connecting`: not yet known. */
type RedisState = 'connecting' | 'up' | 'down';

/** A Redis connection that knows whether it is worth asking. */
export interface RedisLink {
  readonly client: Redis;
  state(): RedisState;
  /** Asks Redis now (a PING within the command timeout), for readiness probes: up or down. */
  check(): Promise<'up' | 'down'>;
  /** Reports a failed command: a timeout means a dead connection, which is dropped and redialled. */
  failed(err: unknown): void;
  close(): Promise<void>;
}

/** Timeouts in milliseconds; a throttle or cache lookup must never hold a request for long. */
export interface RedisTimeouts {
  readonly connectMs: number;
  readonly commandMs: number;
  /** The longest pause between reconnection attempts while Redis is down. */
  readonly maxReconnectMs: number;
}

const DEFAULT_REDIS_TIMEOUTS: RedisTimeouts = redisTimeouts(300);

/** The timeouts for a command timeout (`REDIS_COMMAND_TIMEOUT_MS`): connecting may take a little longer. */
export function redisTimeouts(commandMs: number): RedisTimeouts {
  return { connectMs: Math.max(500, commandMs), commandMs, maxReconnectMs: 1000 };
}

/**
 * Connects lazily (on first use, so CLI commands never dial Redis), logs once per outage (when
 * it begins and when it ends, never per request) and keeps `lectern_redis_up` at 1 or 0.
 */
export function openRedis(
  url: string,
  options: { logger: Logger; registry?: Registry; timeouts?: RedisTimeouts },
): RedisLink {
  const { logger } = options;
  const timeouts = options.timeouts ?? DEFAULT_REDIS_TIMEOUTS;
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeouts.connectMs,
    commandTimeout: timeouts.commandMs,
    // A command never waits for a reconnection: it fails, and the caller fails open.
    maxRetriesPerRequest: 0,
    // Queued commands (only while the very first connection is being made) are bounded by
    // commandTimeout too; once an outage is known, nothing is sent (see state()).
    enableOfflineQueue: true,
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 10), timeouts.maxReconnectMs),
    enableAutoPipelining: true,
  });
  const gauge = options.registry
    ? new Gauge({
        name: 'lectern_redis_up',
        help: 'Whether the Redis of REDIS_URL answers (1) or not (0); while 0, rate limits fail open',
        registers: [options.registry],
      })
    : undefined;
  let state: RedisState = 'connecting';
  let lastError: unknown;
  let closing = false;

  const becomeDown = (err: unknown) => {
    if (state === 'down' || closing) return;
    state = 'down';
    gauge?.set(0);
    logger.warn(
      { err: err ?? lastError },
      'Redis unreachable: rate limits fail open (not enforced) until it answers again',
    );
  };
  client.on('ready', () => {
    if (state === 'down') logger.info('Redis reachable again: rate limits are enforced again');
    state = 'up';
    gauge?.set(1);
  });
  // ioredis emits 'error' on every failed reconnection attempt; only the transition is logged.
  client.on('error', (err) => {
    lastError = err;
  });
  client.on('close', () => becomeDown(lastError));
  client.on('end', () => becomeDown(lastError));

  const link: RedisLink = {
    client,
    state() {
      if (client.status === 'wait' && !closing) client.connect().catch(() => {});
      return state;
    },
    async check() {
      if (link.state() === 'down') return 'down';
      try {
        await client.ping();
        return 'up';
      } catch (err) {
        link.failed(err);
        return 'down';
      }
    },
    failed(err) {
      lastError = err;
      // A command that timed out on a "ready" connection means the peer is gone without a FIN
      // (host down, partition): drop the socket so reconnection, and the down state, begin now.
      if (err instanceof Error && /timed out/i.test(err.message) && client.status === 'ready') {
        becomeDown(err);
        client.disconnect(true);
      }
    },
    async close() {
      closing = true;
      // quit() on a link never used would dial Redis first.
      if (client.status === 'wait') return client.disconnect();
      await client.quit().catch(() => client.disconnect());
    },
  };
  return link;
}
