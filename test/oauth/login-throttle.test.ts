import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/crypto/passwords.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { ACCOUNT_FAILURE_LIMIT, IP_FAILURE_LIMIT } from '../../src/web/login.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { Browser, formFields } from '../support/oauth-flow.ts';
import { type OwnRedis, REDIS_SERVER_AVAILABLE, startOwnRedis } from '../support/redis-server.ts';

const PASSWORD = 'right-password-1';
let accounts = 0;
let addresses = 0;

/** A new account of its own, so no two tests share a counter. */
async function newAccount(t: TestApp): Promise<string> {
  const email = `burst${++accounts}-${Date.now()}@example.com`;
  await createUser(t.runtime.db, { email, name: 'Burst', passwordHash: await hashPassword(PASSWORD) });
  return email;
}

const newAddress = () => `198.51.${100 + Math.floor(++addresses / 250)}.${addresses % 250}`;

/** A browser holding the login form's CSRF token, ready to POST from `address`. */
async function prepared(t: TestApp, email: string, password: string, address: string) {
  const browser = new Browser(t);
  const fields = formFields(await (await browser.request('/login')).text());
  fields.set('email', email);
  fields.set('password', password);
  return () =>
    browser.request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
      body: fields.toString(),
    });
}

/** Fires every prepared POST at once and returns the statuses in the order they were sent. */
async function burst(sends: Array<() => Promise<Response>>): Promise<Response[]> {
  return Promise.all(sends.map((send) => send()));
}

const count = (responses: Response[], status: number) => responses.filter((r) => r.status === status).length;

function throttleSuite(name: string, env: () => Promise<Record<string, string>>, skip?: string) {
  describe(`login throttle under parallel requests (${name})`, { skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp({ TRUST_PROXY: 'true', ...(await env()) });
    });
    after(() => t?.close());

    it('RFC 6819 §4.4.3.6 / OWASP: 40 parallel guesses from 40 addresses check at most 5 passwords; the right one, sent last, gets 429', async () => {
      const email = await newAccount(t);
      const sends = [];
      for (let i = 0; i < 39; i++) sends.push(await prepared(t, email, `wrong-${i}`, newAddress()));
      sends.push(await prepared(t, email, PASSWORD, newAddress()));
      const responses = await burst(sends);
      assert.equal(count(responses, 401), ACCOUNT_FAILURE_LIMIT, 'exactly the limit were checked');
      assert.equal(count(responses, 429), 40 - ACCOUNT_FAILURE_LIMIT);
      const last = responses.at(-1)!;
      assert.equal(last.status, 429, 'the right password did not get through');
      assert.match(last.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
      // And afterwards, the right password from a fresh address is still refused.
      const later = await (await prepared(t, email, PASSWORD, newAddress()))();
      assert.equal(later.status, 429);
      const retry = Number(later.headers.get('retry-after'));
      assert.ok(retry > 0 && retry <= 900, String(retry));
      assert.match(await later.text(), /Too many failed sign-ins/);
    });

    it('one address, 60 parallel guesses at 60 accounts: at most 50 are checked', async () => {
      const address = newAddress();
      const sends = [];
      for (let i = 0; i < 60; i++) {
        sends.push(await prepared(t, `nobody${i}-${address}@example.com`, 'x', address));
      }
      const responses = await burst(sends);
      assert.equal(count(responses, 401), IP_FAILURE_LIMIT);
      assert.equal(count(responses, 429), 60 - IP_FAILURE_LIMIT);
    });

    it('a success does not erase the account’s failures: a burst cannot wipe its own trace', async () => {
      const email = await newAccount(t);
      const address = newAddress;
      for (let i = 0; i < ACCOUNT_FAILURE_LIMIT - 1; i++) {
        assert.equal((await (await prepared(t, email, `wrong-${i}`, address()))()).status, 401);
      }
      assert.equal((await (await prepared(t, email, PASSWORD, address()))()).status, 303);
      assert.equal((await (await prepared(t, email, 'wrong-last', address()))()).status, 401);
      const locked = await (await prepared(t, email, PASSWORD, address()))();
      assert.equal(locked.status, 429, 'the four earlier failures still count');
      assert.match(locked.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    });

    it('successful sign-ins are not counted: one address signs in more often than the failure limit', async () => {
      const email = await newAccount(t);
      const address = newAddress();
      const sends = [];
      for (let i = 0; i < ACCOUNT_FAILURE_LIMIT + 2; i++)
        sends.push(await prepared(t, email, PASSWORD, address));
      for (const send of sends) assert.equal((await send()).status, 303);
    });
  });
}

throttleSuite('in process', async () => ({}));

let redis: OwnRedis | undefined;
after(() => redis?.kill());
throttleSuite(
  'Redis',
  async () => {
    redis ??= await startOwnRedis();
    return { REDIS_URL: redis.url };
  },
  REDIS_SERVER_AVAILABLE ? undefined : 'redis-server is not installed',
);
