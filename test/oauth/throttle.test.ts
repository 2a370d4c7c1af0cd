import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import pino from 'pino';
import { Registry } from 'prom-client';
import {
  createMemoryThrottle,
  createRedisThrottle,
  createThrottle,
  type Throttle,
} from '../../src/http/throttle.ts';
import { openRedis } from '../../src/store/redis.ts';

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

    it('reserve checks and counts in one step: 30 parallel reservations against a limit of 5 grant 5', async (ctx) => {
      if (await skip()) return ctx.skip('Redis not reachable');
      const throttle = make(Date.now);
      const rule = { key: `burst:${Math.random()}`, limit: 5, windowSeconds: 60 };
      try {
        const all = await Promise.all(Array.from({ length: 30 }, () => throttle.reserve([rule])));
        assert.equal(all.filter((r) => r.retryAfter === 0).length, 5);
        for (const r of all.filter((r) => r.retryAfter > 0))
          assert.ok(r.retryAfter > 0 && r.retryAfter <= 60);
        assert.ok((await throttle.retryAfter([rule])) > 0, 'the granted ones are counted');
      } finally {
        await throttle.reset(rule.key);
        await throttle.close();
      }
    });

    it('reserve is all or nothing across rules, and release takes back only its own attempt', async (ctx) => {
      if (await skip()) return ctx.skip('Redis not reachable');
      let now = 2_000_000;
      const throttle = make(() => now);
      const tight = { key: `tight:${Math.random()}`, limit: 1, windowSeconds: 60 };
      const loose = { key: `loose:${Math.random()}`, limit: 3, windowSeconds: 60 };
      try {
        const first = await throttle.reserve([tight, loose]);
        assert.equal(first.retryAfter, 0);
        now += 1000;
        const second = await throttle.reserve([tight, loose]);
        assert.equal(second.retryAfter, 59, 'refused by the tight rule');
        await second.release(); // a refused reservation holds nothing
        now += 1000;
        // The refused attempt added nothing to the loose rule: two more fit there.
        assert.equal((await throttle.reserve([loose])).retryAfter, 0);
        const third = await throttle.reserve([loose]);
        assert.equal(third.retryAfter, 0);
        assert.equal((await throttle.reserve([loose])).retryAfter, 58);
        await third.release();
        assert.equal((await throttle.reserve([loose])).retryAfter, 0, 'the released place is free again');
        await first.release();
        assert.equal(await throttle.retryAfter([tight]), 0);
      } finally {
        await throttle.reset(tight.key);
        await throttle.reset(loose.key);
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
const clients: Redis[] = [];
after(() => Promise.all(clients.map((c) => c.quit())));
contract(
  'Redis',
  (clock) => {
    const client = new Redis(REDIS_URL);
    clients.push(client);
    return createRedisThrottle(client, clock);
  },
  redisMissing,
);

describe('Redis outage', () => {
  it('fails open: an unreachable Redis lets sign-ins through and reports the error', async () => {
    const errors: unknown[] = [];
    const redis = openRedis('redis://127.0.0.1:1', {
      logger: pino({ level: 'silent' }),
      registry: new Registry(),
    });
    const throttle = createThrottle({ redis, onError: (err) => errors.push(err) });
    try {
      const rule = [{ key: 'k', limit: 1, windowSeconds: 60 }];
      await throttle.recordFailure(rule);
      assert.equal(await throttle.retryAfter(rule), 0);
      assert.ok(errors.length > 0);
      assert.equal((await throttle.reserve(rule)).retryAfter, 0);
      assert.equal(redis.state(), 'down');
    } finally {
      await throttle.close();
      await redis.close();
    }
  });
});
