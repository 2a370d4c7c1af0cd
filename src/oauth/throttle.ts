import { Redis } from 'ioredis';
import { randomToken, sha256 } from '../crypto/tokens.ts';

/** One counter: at most `limit` failures within a sliding window of `windowSeconds`. */
export interface ThrottleRule {
  readonly key: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

/**
 * Failed-attempt counters with sliding windows. The same interface runs in process (one
 * instance) or on Redis (several instances share the counters).
 */
export interface Throttle {
  /** Seconds until every rule allows another attempt; 0 when none is over its limit. */
  retryAfter(rules: readonly ThrottleRule[]): Promise<number>;
  /** Counts one failure against every rule. */
  recordFailure(rules: readonly ThrottleRule[]): Promise<void>;
  /** Forgets a key's failures (after a successful sign-in). */
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

// Counters are keyed by a hash: emails and addresses never sit in memory dumps or Redis as text.
const keyOf = (key: string) => `lectern:throttle:${sha256(key)}`;

function waitFor(times: readonly number[], rule: ThrottleRule, now: number): number {
  const windowMs = rule.windowSeconds * 1000;
  const live = times.filter((t) => t > now - windowMs).sort((a, b) => a - b);
  if (live.length < rule.limit) return 0;
  // Allowed again once enough of the oldest failures have left the window.
  const freeing = live[live.length - rule.limit];
  return Math.max(1, Math.ceil((freeing + windowMs - now) / 1000));
}

const MAX_KEYS = 100_000;

/** In-process sliding windows (bounded: the oldest keys are dropped past 100 000). */
export function createMemoryThrottle(clock: () => number = Date.now): Throttle {
  const failures = new Map<string, number[]>();
  return {
    async retryAfter(rules) {
      const now = clock();
      return Math.max(0, ...rules.map((r) => waitFor(failures.get(keyOf(r.key)) ?? [], r, now)));
    },
    async recordFailure(rules) {
      const now = clock();
      for (const r of rules) {
        const k = keyOf(r.key);
        const kept = (failures.get(k) ?? []).filter((t) => t > now - r.windowSeconds * 1000);
        kept.push(now);
        failures.delete(k);
        failures.set(k, kept);
        if (failures.size > MAX_KEYS) failures.delete(failures.keys().next().value!);
      }
    },
    async reset(key) {
      failures.delete(keyOf(key));
    },
    async close() {
      failures.clear();
    },
  };
}

/** Sliding windows in Redis sorted sets (member = unique id, score = time in ms). */
export function createRedisThrottle(
  url: string,
  clock: () => number = Date.now,
  onError: (err: unknown) => void = () => {},
): Throttle {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, enableAutoPipelining: true });
  // Without a listener ioredis reports connection errors as unhandled 'error' events.
  redis.on('error', onError);
  return {
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
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/**
 * Redis when a URL is configured (several instances), else in process. A Redis outage must not
 * lock everybody out: its errors are reported and the request is let through (fail open).
 */
export function createThrottle(
  redisUrl: string | undefined,
  onError: (err: unknown) => void = () => {},
): Throttle {
  if (!redisUrl) return createMemoryThrottle();
  const inner = createRedisThrottle(redisUrl, Date.now, onError);
  const guard = async <T>(fallback: T, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      onError(err);
      return fallback;
    }
  };
  return {
    retryAfter: (rules) => guard(0, () => inner.retryAfter(rules)),
    recordFailure: (rules) => guard(undefined, () => inner.recordFailure(rules)),
    reset: (key) => guard(undefined, () => inner.reset(key)),
    close: () => inner.close(),
  };
}
