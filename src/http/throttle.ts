import type { Redis } from 'ioredis';
import { Counter, type Registry } from 'prom-client';
import { randomToken, sha256 } from '../crypto/tokens.ts';
import type { RedisLink } from '../store/redis.ts';
import { nowMs } from '../store/time.ts';

/** One counter: at most `limit` attempts within a sliding window of `windowSeconds`. */
export interface ThrottleRule {
  readonly key: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

/** The answer to `reserve`: counted (retryAfter 0), or refused with the seconds to wait. */
interface Reservation {
  readonly retryAfter: number;
  /** Takes this attempt back out of every counter it was added to (nothing when refused). */
  release(): Promise<void>;
}

/**
 * Attempt counters with sliding windows. The same interface runs in process (one instance) or on
 * Redis (several instances share the counters).
 */
export interface Throttle {
  /**
   * Check and count in one atomic step: when every rule has room, the attempt is added to each
   * and granted; else nothing is added. N parallel attempts therefore cost N, and at most
   * `limit` of them are granted (check-then-record let bursts through).
   */
  reserve(rules: readonly ThrottleRule[]): Promise<Reservation>;
  /** Seconds until every rule allows another attempt; 0 when none is over its limit. */
  retryAfter(rules: readonly ThrottleRule[]): Promise<number>;
  /** Counts one attempt against every rule, whatever the limit. */
  recordFailure(rules: readonly ThrottleRule[]): Promise<void>;
  /** Forgets a key's attempts. */
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

// Counters are keyed by a hash: emails and addresses never sit in memory dumps or Redis as text.
const keyOf = (key: string) => `lectern:throttle:${sha256(key)}`;

/** Seconds until `rule` has room given the attempt times in its window; 0 when it has now. */
function waitFor(times: readonly number[], rule: ThrottleRule, now: number): number {
  const windowMs = rule.windowSeconds * 1000;
  const live = times.filter((t) => t > now - windowMs).sort((a, b) => a - b);
  if (live.length < rule.limit) return 0;
  // Allowed again once enough of the oldest attempts have left the window.
  const freeing = live[live.length - rule.limit];
  return Math.max(1, Math.ceil((freeing + windowMs - now) / 1000));
}

const granted = (release: () => Promise<void>): Reservation => ({ retryAfter: 0, release });
const refused = (retryAfter: number): Reservation => ({ retryAfter, release: async () => {} });

const MAX_KEYS = 100_000;

/**
 * In-process sliding windows (bounded: the oldest keys are dropped past 100 000). Every method
 * runs to completion without awaiting, so check-and-count is atomic in one process.
 */
export function createMemoryThrottle(clock: () => number = nowMs): Throttle {
  const attempts = new Map<string, number[]>();
  const live = (r: ThrottleRule, now: number) =>
    (attempts.get(keyOf(r.key)) ?? []).filter((t) => t > now - r.windowSeconds * 1000);
  const add = (rules: readonly ThrottleRule[], now: number) => {
    for (const r of rules) {
      const k = keyOf(r.key);
      const kept = live(r, now);
      kept.push(now);
      attempts.delete(k);
      attempts.set(k, kept);
      if (attempts.size > MAX_KEYS) attempts.delete(attempts.keys().next().value!);
    }
  };
  const wait = (rules: readonly ThrottleRule[], now: number) =>
    Math.max(0, ...rules.map((r) => waitFor(live(r, now), r, now)));
  return {
    async reserve(rules) {
      const now = clock();
      const seconds = wait(rules, now);
      if (seconds > 0) return refused(seconds);
      add(rules, now);
      return granted(async () => {
        for (const r of rules) {
          const times = attempts.get(keyOf(r.key));
          const at = times?.indexOf(now) ?? -1;
          if (at >= 0) times!.splice(at, 1);
        }
      });
    },
    async retryAfter(rules) {
      return wait(rules, clock());
    },
    async recordFailure(rules) {
      add(rules, clock());
    },
    async reset(key) {
      attempts.delete(keyOf(key));
    },
    async close() {
      attempts.clear();
    },
  };
}

/**
 * Check-and-count on Redis in one script, so parallel requests on any instance cannot all pass
 * the check before one of them counts. KEYS: one sorted set per rule (member = unique attempt id,
 * score = time in ms). ARGV: now, attempt id, then limit and window (ms) per key. Returns 0 when
 * the attempt was added everywhere, else the milliseconds until every rule has room.
 */
const RESERVE_SCRIPT = `
local now = tonumber(ARGV[1])
local wait = 0
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[1 + 2 * i])
  local window = tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, 0, now - window)
  local n = redis.call('ZCARD', key)
  if n >= limit then
    local freeing = tonumber(redis.call('ZRANGE', key, n - limit, n - limit, 'WITHSCORES')[2])
    wait = math.max(wait, freeing + window - now)
  end
end
if wait > 0 then return wait end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[2])
  redis.call('PEXPIRE', key, tonumber(ARGV[2 + 2 * i]))
end
return 0
`;

type ReserveCommand = (numKeys: number, ...args: Array<string | number>) => Promise<number>;

/** Sliding windows in Redis sorted sets. Errors propagate: `createThrottle` adds the policy. */
export function createRedisThrottle(redis: Redis, clock: () => number = nowMs): Throttle {
  redis.defineCommand('lecternThrottleReserve', { lua: RESERVE_SCRIPT });
  const reserveCommand = (redis as unknown as { lecternThrottleReserve: ReserveCommand })
    .lecternThrottleReserve;
  return {
    async reserve(rules) {
      const now = clock();
      const id = `${now}:${randomToken(6)}`;
      const keys = rules.map((r) => keyOf(r.key));
      const args = rules.flatMap((r) => [r.limit, r.windowSeconds * 1000]);
      const waitMs = Number(await reserveCommand.call(redis, keys.length, ...keys, now, id, ...args));
      if (waitMs > 0) return refused(Math.max(1, Math.ceil(waitMs / 1000)));
      return granted(async () => {
        const multi = redis.multi();
        for (const k of keys) multi.zrem(k, id);
        await multi.exec();
      });
    },
    async retryAfter(rules) {
      const now = clock();
      const waits = await Promise.all(
        rules.map(async (r) => {
          const k = keyOf(r.key);
          await redis.zremrangebyscore(k, 0, now - r.windowSeconds * 1000);
          const scores = await redis.zrange(k, '0', '-1', 'WITHSCORES');
          const times = scores.filter((_, i) => i % 2 === 1).map(Number);
          return waitFor(times, r, now);
        }),
      );
      return Math.max(0, ...waits);
    },
    async recordFailure(rules) {
      const now = clock();
      const multi = redis.multi();
      for (const r of rules) {
        const k = keyOf(r.key);
        multi.zadd(k, now, `${now}:${randomToken(6)}`);
        multi.zremrangebyscore(k, 0, now - r.windowSeconds * 1000);
        multi.pexpire(k, r.windowSeconds * 1000);
      }
      await multi.exec();
    },
    async reset(key) {
      await redis.del(keyOf(key));
    },
    // The connection belongs to whoever opened it (the runtime).
    async close() {},
  };
}

/**
 * Redis when a link is given (several instances), else in process. A Redis outage must not lock
 * everybody out, nor hold each request: while the link is down, nothing is sent and every attempt
 * is let through at once (fail open); a call that fails is let through too and reported to
 * `onError`. `lectern_throttle_fail_open_total` counts the attempts let through unchecked.
 */
export function createThrottle(
  options: { redis?: RedisLink; onError?: (err: unknown) => void; registry?: Registry } = {},
): Throttle {
  const { redis, onError = () => {} } = options;
  if (!redis) return createMemoryThrottle();
  const inner = createRedisThrottle(redis.client);
  const failOpen = options.registry
    ? new Counter({
        name: 'lectern_throttle_fail_open_total',
        help: 'Rate-limited attempts let through unchecked because Redis was unreachable',
        registers: [options.registry],
      })
    : undefined;
  // `letThrough`: the fallback lets an attempt pass unchecked (counted), not just skips a write.
  const guard = async <T>(fallback: T, run: () => Promise<T>, letThrough = false): Promise<T> => {
    if (redis.state() === 'down') {
      if (letThrough) failOpen?.inc();
      return fallback;
    }
    try {
      return await run();
    } catch (err) {
      redis.failed(err);
      if (letThrough) failOpen?.inc();
      onError(err);
      return fallback;
    }
  };
  const open = refused(0);
  return {
    reserve: (rules) =>
      guard(
        open,
        async () => {
          const reservation = await inner.reserve(rules);
          return { retryAfter: reservation.retryAfter, release: () => guard(undefined, reservation.release) };
        },
        true,
      ),
    retryAfter: (rules) => guard(0, () => inner.retryAfter(rules), true),
    recordFailure: (rules) => guard(undefined, () => inner.recordFailure(rules)),
    reset: (key) => guard(undefined, () => inner.reset(key)),
    close: () => inner.close(),
  };
}
