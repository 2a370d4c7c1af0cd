import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createMemoryThrottle,
  createRedisThrottle,
  createThrottle,
  type Throttle,
} from '../../src/oauth/throttle.ts';

const REDIS_URL = process.env.REDIS_URL_TEST ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const { Redis } = await import('ioredis');
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** The same contract for both implementations: a sliding window per key. */
function contract(
  name: string,
  make: (clock: () => number) => Throttle,
  skip: () => Promise<boolean> = async () => false,
) {
  describe(`${name} throttle`, () => {
    it('allows up to the limit, then tells how long to wait; the window slides', async (ctx) => {
      if (await skip()) return ctx.skip('Redis not reachable');
      let now = 1_000_000;
      const throttle = make(() => now);
      const key = `acct:${Math.random()}`;
      const rule = [{ key, limit: 3, windowSeconds: 60 }];
      try {
        for (let i = 0; i < 3; i++) {
          assert.equal(await throttle.retryAfter(rule), 0);
          await throttle.recordFailure(rule);
          now += 10_000;
        }
        // Failures at 0 s, 10 s, 20 s; now 30 s: the oldest leaves the window at 60 s.
        assert.equal(await throttle.retryAfter(rule), 30);
        now += 30_000;
        assert.equal(await throttle.retryAfter(rule), 0);
        await throttle.recordFailure(rule);
        assert.equal(await throttle.retryAfter(rule), 10);
      } finally {
        await throttle.reset(key);
        await throttle.close();
      }
    });

    it('keys are independent and reset clears one', async (ctx) => {
      if (await skip()) return ctx.skip('Redis not reachable');
      const throttle = make(Date.now);
      const a = { key: `a:${Math.random()}`, limit: 1, windowSeconds: 60 };
      const b = { key: `b:${Math.random()}`, limit: 1, windowSeconds: 60 };
      try {
        await throttle.recordFailure([a]);
        assert.ok((await throttle.retryAfter([a])) > 0);
        assert.equal(await throttle.retryAfter([b]), 0);
        assert.ok((await throttle.retryAfter([a, b])) > 0, 'the strictest rule wins');
        await throttle.reset(a.key);
        assert.equal(await throttle.retryAfter([a]), 0);
      } finally {
        await throttle.reset(a.key);
        await throttle.close();
      }
    });
  });
}

contract('in-process', (clock) => createMemoryThrottle(clock));
let reachable: Promise<boolean> | undefined;
const redisMissing = async () => {
  reachable ??= redisReachable();
  return !(await reachable);
};
contract('Redis', (clock) => createRedisThrottle(REDIS_URL, clock), redisMissing);

describe('Redis outage', () => {
  it('fails open: an unreachable Redis lets sign-ins through and reports the error', async () => {
    const errors: unknown[] = [];
    const throttle = createThrottle('redis://127.0.0.1:1', (err) => errors.push(err));
    try {
      const rule = [{ key: 'k', limit: 1, windowSeconds: 60 }];
      await throttle.recordFailure(rule);
      assert.equal(await throttle.retryAfter(rule), 0);
      assert.ok(errors.length > 0);
    } finally {
      await throttle.close();
    }
  });
});
