import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isoIn, isoNow, nowMs, systemClock, withClock } from '../../src/store/time.ts';
import { createTestApp } from '../support/app.ts';
import { createTestClock } from '../support/clock.ts';

describe('the clock (store/time.ts)', () => {
  it('reads the system clock when no clock is bound', () => {
    const before = Date.now();
    const now = nowMs();
    assert.ok(now >= before && now <= Date.now());
    assert.equal(systemClock.now() >= now, true);
  });

  it('reads the bound clock inside the work, across awaits, and nothing outside it', async () => {
    const fixed = { now: () => Date.parse('2030-01-02T03:04:05.678Z') };
    const seen = await withClock(fixed, async () => {
      await new Promise((r) => setImmediate(r));
      return [isoNow(), isoIn(60), await Promise.resolve().then(() => nowMs())];
    });
    assert.deepEqual(seen, ['2030-01-02T03:04:05.678Z', '2030-01-02T03:05:05.678Z', fixed.now()]);
    assert.ok(Math.abs(nowMs() - Date.now()) < 1000, 'the system clock again outside');
  });

  it('a nested binding wins inside, the outer one resumes after', () => {
    const a = { now: () => 1_000 };
    const b = { now: () => 2_000 };
    const seen = withClock(a, () => [nowMs(), withClock(b, () => nowMs()), nowMs()]);
    assert.deepEqual(seen, [1_000, 2_000, 1_000]);
  });

  it('a test clock runs with the system time until moved; travel comes back', async () => {
    const clock = createTestClock('2030-01-01T00:00:00.000Z');
    assert.ok(Math.abs(clock.now() - Date.parse('2030-01-01T00:00:00.000Z')) < 1000);
    const start = clock.now();
    const during = await clock.travel(3_600_000, async () => nowMs());
    assert.ok(during - start >= 3_600_000 && during - start < 3_601_000, 'bound and moved inside');
    assert.ok(clock.now() - start < 1000, 'back after');
    assert.throws(() => clock.set('yesterday'), /not an ISO 8601 instant/);
  });

  it("every request runs on the app's clock", async () => {
    const clock = createTestClock();
    const t = await createTestApp({}, { clock });
    try {
      clock.set('2031-05-06T07:08:09.000Z');
      const res = await t.request('/api/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Clock CLI', redirect_uris: ['http://127.0.0.1/callback'] }),
      });
      assert.equal(res.status, 201, await res.clone().text());
      // RFC 7591 §3.2.1: client_id_issued_at is the time of issue, here the app's clock's.
      const issuedAt = (await res.json()).client_id_issued_at as number;
      const set = Date.parse('2031-05-06T07:08:09.000Z') / 1000;
      assert.ok(issuedAt >= set && issuedAt < set + 60, `issued at ${issuedAt}`);
    } finally {
      await t.close();
    }
  });
});
