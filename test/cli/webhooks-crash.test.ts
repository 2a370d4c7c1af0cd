/**
 * Issue #13 point 4, with real processes: deliveries survive a kill -9 of the worker (none is
 * lost; the one in flight may come twice, at least once being the promise), and two `lectern
 * worker` processes on one database share the work without delivering anything twice.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { type Db, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../support/database.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import { cliEnv, spawnLectern } from './run.ts';

/** Waits (polling real time: these are real processes) until `done`, or fails after `ms`. */
async function until(done: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function start(command: 'serve' | 'worker', env: Record<string, string>): ChildProcess {
  const child = spawnLectern([command], command === 'serve' ? { ...env, PORT: '0' } : env);
  child.stdout!.on('data', (d) => process.env.DEBUG_WORKERS && process.stderr.write(d));
  child.stderr!.on('data', (d) => process.env.DEBUG_WORKERS && process.stderr.write(d));
  return child;
}

/** Resolves once a `lectern worker` child has logged that it runs. */
function running(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('lectern worker running')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before it ran`)));
  });
}

describe(`webhook delivery across processes (${ENGINE})`, () => {
  let database: TestDatabase;
  let db: Db;
  let receiver: WebhookReceiver;
  let env: Record<string, string>;
  let schoolId: string;
  before(async () => {
    database = await createTestDatabase();
    db = openDatabase(database.options);
    await migrateToLatest(db);
    receiver = await new WebhookReceiver().start();
    env = cliEnv(database, {
      WEBHOOK_TIMEOUT_SECONDS: '1',
      LOG_LEVEL: process.env.DEBUG_WORKERS ? 'info' : 'warn',
    });
    schoolId = (await createSchool(db, { name: 'Crash School', subdomain: `crash-${Date.now()}` })).id;
  });
  after(async () => {
    await receiver.close();
    await db.destroy();
    await database.drop();
  });

  const endpoint = async (path: string) =>
    createEndpoint(
      db,
      schoolId,
      { url: `${receiver.url}${path}`, eventTypes: ['course.published'] },
      { key: Buffer.from(env.LECTERN_SECRET, 'base64url'), allowLoopbackHttp: true, secretOverlapSeconds: 0 },
    );
  const publish = async (n: number, tag: string) => {
    for (let i = 0; i < n; i++) {
      await createCourse(db, schoolId, { slug: `${tag}-${i}`, title: `${tag} ${i}`, status: 'published' });
    }
  };
  const count = async (status: string) =>
    (
      await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '=', status as 'pending')
        .execute()
    ).length;

  it('a kill -9 of `lectern serve` while deliveries are pending loses none', async () => {
    const { secret } = await endpoint('/crash');
    receiver.secrets = [secret];
    receiver.defaultAnswer = { delayMs: 100 };
    await publish(30, 'crash');
    assert.equal(await count('pending'), 30);
    const a = start('serve', env);
    await until(() => receiver.on('/crash').length >= 5, 30_000, 'the first deliveries');
    a.kill('SIGKILL');
    await once(a, 'exit');
    const pending = await count('pending');
    assert.ok(pending > 0, 'killed with deliveries pending');
    const b = start('serve', env);
    try {
      await until(async () => (await count('succeeded')) === 30, 60_000, 'every delivery after the restart');
    } finally {
      b.kill('SIGTERM');
      const [code] = await once(b, 'exit');
      assert.equal(code, 0, 'serve stops cleanly on SIGTERM, its worker with it');
    }
    const got = receiver.on('/crash');
    const ids = new Set(got.map((g) => g.id));
    assert.equal(ids.size, 30, 'every event arrived');
    assert.ok(got.length - ids.size <= 1, 'at most the attempt in flight at the kill came twice');
    assert.ok(
      got.every((g) => g.signedBy.length === 1),
      'every delivery verified',
    );
  });

  it('two worker processes on one database share the deliveries and make each attempt once', async () => {
    receiver.defaultAnswer = { delayMs: 5 };
    const paths = ['/p1', '/p2', '/p3', '/p4'];
    for (const p of paths) await endpoint(p);
    // At info, a worker says when it runs (the readiness this test waits for).
    const workerEnv = { ...env, LOG_LEVEL: 'info' };
    const workers = [start('worker', workerEnv), start('worker', workerEnv)];
    try {
      // Both processes run before there is anything to deliver, so neither can drain the queue
      // alone while the other is still starting (a loaded machine starts them seconds apart).
      await Promise.all(workers.map(running));
      await publish(40, 'pair');
      await until(
        () => paths.every((p) => new Set(receiver.on(p).map((g) => g.id)).size === 40),
        60_000,
        'every delivery by two workers',
      );
    } finally {
      // Listen before signalling: a process that exits while another is awaited must not be missed.
      const exits = workers.map((w) => once(w, 'exit'));
      for (const w of workers) w.kill('SIGTERM');
      await Promise.all(exits);
    }
    for (const p of paths) assert.equal(receiver.on(p).length, 40, `${p}: nothing delivered twice`);
    const owners = await db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
      .select('webhook_deliveries.lease_owner')
      .where(
        'webhook_endpoints.url',
        'in',
        paths.map((p) => `${receiver.url}${p}`),
      )
      .execute();
    const byOwner = new Map<string, number>();
    for (const o of owners) byOwner.set(String(o.lease_owner), (byOwner.get(String(o.lease_owner)) ?? 0) + 1);
    console.log(`# deliveries per worker process: ${JSON.stringify(Object.fromEntries(byOwner))}`);
    // PostgreSQL is the engine several instances share (SKIP LOCKED leasing); on SQLite's single
    // writer one process may well win every claim, which is fine as long as nothing comes twice.
    if (ENGINE === 'postgres') assert.equal(byOwner.size, 2, 'both processes delivered');
  });
});
