/**
 * CPU per request of the member's real write, the Account API mutation `recordLectureProgress`
 * through app.fetch (the whole HTTP stack but the socket: routing, bearer check, GraphQL, the
 * unit of work), with the outbox or without it. "Without" replaces recordEvent by a no-op with
 * Node's module mocks, in this script's process only (nothing in src/ can switch the outbox
 * off): `node --experimental-test-module-mocks bench/outbox-http.ts without`. Prints one JSON
 * line; event-scenarios.ts runs it in alternating child processes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const variant = process.argv[2] === 'without' ? 'without' : 'with';
if (variant === 'without') {
  const { mock } = await import('node:test');
  mock.module(new URL('../src/events/outbox.ts', import.meta.url).href, {
    exports: { recordEvent: async () => 'evt_none' },
  });
}
const { createApp } = await import('../src/app.ts');
const { loadConfig } = await import('../src/config.ts');
const { seedDemoData } = await import('../src/domain/demo/demo-seed.ts');
const { openRuntime } = await import('../src/runtime.ts');
const { issueMemberToken } = await import('./mcp-scenarios.ts');

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 3000);
const dir = mkdtempSync(join(tmpdir(), 'lectern-outbox-http-'));
const env = {
  DATABASE_URL: `file:${join(dir, 'lectern.sqlite')}`,
  BASE_URL: 'http://127.0.0.1:1',
  LOG_LEVEL: 'warn',
  NODE_ENV: 'development',
  WEBHOOK_WORKER: 'false',
};
const runtime = await openRuntime(loadConfig(env), { processMetrics: false });
await seedDemoData(runtime.db);
const token = await issueMemberToken(env, ['openid', 'account:read', 'account:write']);
const student = await runtime.db
  .selectFrom('users')
  .select('id')
  .where('email', '=', 'student@example.com')
  .executeTakeFirstOrThrow();
const lectures = await runtime.db
  .selectFrom('lectures')
  .innerJoin('enrollments', 'enrollments.course_id', 'lectures.course_id')
  .select('lectures.id')
  .where('enrollments.user_id', '=', student.id)
  .where('enrollments.expires_at', 'is', null)
  .execute();
const app = createApp(runtime);
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const QUERY =
  'mutation($i: RecordLectureProgressInput!) { recordLectureProgress(input: $i) { lectureProgress { positionSeconds } } }';
const request = (i: number) =>
  new Request('http://127.0.0.1:1/account/graphql', {
    method: 'POST',
    headers,
    body: JSON.stringify({
      query: QUERY,
      variables: { i: { lectureId: lectures[i % lectures.length].id, positionSeconds: i % 1000 } },
    }),
  });
const first = await app.fetch(request(1));
const text = await first.text();
if (first.status !== 200 || !text.includes('"positionSeconds":1'))
  throw new Error(`answered ${first.status}: ${text}`);
for (let i = 0; i < 1000; i++) await (await app.fetch(request(i))).arrayBuffer();
const events = async () =>
  Number(
    (
      await runtime.db
        .selectFrom('domain_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const eventsBefore = await events();
const start = process.cpuUsage();
for (let i = 0; i < ITERATIONS; i++) await (await app.fetch(request(i))).arrayBuffer();
const used = process.cpuUsage(start);
const eventsWritten = (await events()) - eventsBefore;
console.log(JSON.stringify({ variant, microseconds: (used.user + used.system) / ITERATIONS, eventsWritten }));
await runtime.close();
rmSync(dir, { recursive: true, force: true });
