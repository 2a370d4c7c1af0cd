import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/crypto/passwords.ts';
import { createUser } from '../../src/domain/school/users.ts';
import type { TestApp } from '../support/app.ts';
import { createLoggedTestApp } from '../support/logged-app.ts';
import { Browser, formFields } from '../support/oauth-flow.ts';
import { type OwnRedis, REDIS_SERVER_AVAILABLE, startOwnRedis } from '../support/redis-server.ts';

const PASSWORD = 'outage-password';
/** A bound, not a benchmark: the old client waited out retries for 25–30 s per sign-in. */
const FAST_MS = 2000;

interface LogLine {
  level: number;
  msg: string;
}

/** A test app on `redisUrl` whose log lines are kept. */
async function appWithLogs(redisUrl: string) {
  const t = await createLoggedTestApp({
    LOG_LEVEL: 'info',
    TRUST_PROXY: 'true',
    REDIS_URL: redisUrl,
    REDIS_COMMAND_TIMEOUT_MS: '300',
  });
  return { t, logs: t.logs as unknown as LogLine[] };
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  let timer: NodeJS.Timeout | undefined;
  // The old client could hang on a stopped Redis: give up at 20 s rather than at the test timeout.
  const giveUp = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer within 20 s')), 20_000);
  });
  try {
    const value = await Promise.race([run(), giveUp]);
    return { value, ms: performance.now() - start };
  } finally {
    clearTimeout(timer);
  }
}

describe('Redis outage: sign-in fails open at once, readyz and metrics say so, limits resume', {
  skip: REDIS_SERVER_AVAILABLE ? undefined : 'redis-server is not installed',
}, () => {
  let redis: OwnRedis;
  let t: TestApp;
  let logs: LogLine[];
  let email: string;
  before(async () => {
    redis = await startOwnRedis();
    ({ t, logs } = await appWithLogs(redis.url));
    email = `outage-${Date.now()}@example.com`;
    await createUser(t.runtime.db, { email, name: 'Outage', passwordHash: await hashPassword(PASSWORD) });
  });
  after(async () => {
    await t?.close();
    await redis?.kill();
  });

  let address = 0;
  const signIn = async (password: string) => {
    const browser = new Browser(t);
    const fields = formFields(await (await browser.request('/login')).text());
    fields.set('email', email);
    fields.set('password', password);
    return browser.request('/login', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': `192.0.2.${++address}`,
      },
      body: fields.toString(),
    });
  };
  const readyz = async () => {
    const res = await t.request('/readyz');
    return { status: res.status, body: await res.json() };
  };
  const redisUp = async () =>
    (await (await t.request('/metrics')).text()).match(/^lectern_redis_up (\d)$/m)?.[1];
  const outageLines = () => logs.filter((l) => /Redis unreachable/.test(l.msg));

  it('while Redis answers: readyz reports it and lectern_redis_up is 1', async () => {
    assert.deepEqual(await readyz(), { status: 200, body: { status: 'ok', database: 'ok', redis: 'ok' } });
    assert.equal(await redisUp(), '1');
    assert.equal((await signIn('wrong')).status, 401);
  });

  it('Redis killed: sign-ins and registrations answer fast (fail open), logged once, readyz 200 with detail', async () => {
    await redis.kill();
    for (let i = 0; i < 4; i++) {
      const { value, ms } = await timed(() => signIn(`wrong-${i}`));
      assert.equal(value.status, 401);
      assert.ok(ms < FAST_MS, `sign-in ${i} took ${Math.round(ms)} ms`);
    }
    const { value: good, ms } = await timed(() => signIn(PASSWORD));
    assert.equal(good.status, 303);
    assert.ok(ms < FAST_MS, `good sign-in took ${Math.round(ms)} ms`);
    const { value: registered, ms: registerMs } = await timed(() =>
      t.request('/api/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.250' },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'] }),
      }),
    );
    assert.equal(registered.status, 201);
    assert.ok(registerMs < FAST_MS, `registration took ${Math.round(registerMs)} ms`);

    const { value: ready, ms: readyMs } = await timed(readyz);
    assert.deepEqual(ready, {
      status: 200,
      body: { status: 'degraded', database: 'ok', redis: 'unreachable', detail: 'Redis is unreachable.' },
    });
    assert.ok(readyMs < FAST_MS);
    assert.equal(await redisUp(), '0');
    assert.equal(outageLines().length, 1, 'one warning per outage, not one per request');
    assert.equal(outageLines()[0].level, 40);
  });

  it('Redis back: readyz recovers, one line says so, and the throttle counts again', async () => {
    await redis.start();
    const deadline = Date.now() + 15_000;
    while ((await readyz()).body.redis !== 'ok') {
      assert.ok(Date.now() < deadline, 'readyz did not recover within 15 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(await readyz(), { status: 200, body: { status: 'ok', database: 'ok', redis: 'ok' } });
    assert.equal(await redisUp(), '1');
    assert.equal(logs.filter((l) => /Redis reachable again/.test(l.msg)).length, 1);
    // The restarted Redis is empty: five new failures, then even the right password is refused.
    for (let i = 0; i < 5; i++) assert.equal((await signIn(`again-${i}`)).status, 401);
    const refused = await signIn(PASSWORD);
    assert.equal(refused.status, 429);
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(outageLines().length, 1);
  });

  it('a Redis that hangs (SIGSTOP: connected, never answers) costs one command timeout, then fails open at once', async () => {
    const pid = redis.pid();
    process.kill(pid, 'SIGSTOP');
    try {
      for (let i = 0; i < 3; i++) {
        const { value, ms } = await timed(() => signIn(PASSWORD));
        // Over the limit from the previous test while Redis answered; now let through unchecked.
        assert.equal(value.status, 303);
        assert.ok(ms < FAST_MS, `sign-in ${i} took ${Math.round(ms)} ms`);
      }
      assert.equal((await readyz()).body.redis, 'unreachable');
      assert.equal(outageLines().length, 2, 'the second outage is logged once');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const deadline = Date.now() + 15_000;
    while ((await readyz()).body.redis !== 'ok') {
      assert.ok(Date.now() < deadline, 'readyz did not recover within 15 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await signIn(PASSWORD)).status, 429, 'limits apply again');
  });
});
