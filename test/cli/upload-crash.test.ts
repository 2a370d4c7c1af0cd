/**
 * Uploads across a crash: a `lectern serve` child is killed with SIGKILL while uploads are being
 * written, observed from outside as an object in the files directory that no row names. What a
 * crash leaves is only staged objects (never a partial file under a file's own name), and the
 * storage sweep removes them once their grace period has passed, while every file a row names
 * is kept whole.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { localFileStore } from '../../src/domain/school/file-store.ts';
import { ORPHAN_GRACE_MS, sweepOrphanFiles } from '../../src/domain/school/storage-sweep.ts';
import { type Db, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { createTestDatabase } from '../support/database.ts';
import { cliEnv, crashSchoolOwner, spawnLectern, untilListening } from './run.ts';

const BASE_URL = 'http://lectern.test';
const UPLOADS = 20;
/** Kill cycles at most: each one stops a server with uploads in flight, until one is caught mid-write. */
const CYCLES = 5;
const MB = 1024 * 1024;
/** A PNG by its signature, `size` bytes long. */
const png = (size: number, fill: number) => {
  const b = new Uint8Array(size).fill(fill);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return b;
};

/** One raw upload on its own connection; settles with the status or the socket error. */
function upload(url: string, token: string, body: Uint8Array): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.request(
      `${url}/api/v1/storage/files?filename=crash.png`,
      {
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', (err) => resolve(err.message));
      },
    );
    req.on('error', (err) => resolve(err.message));
    req.end(body);
  });
}

async function rows(db: Db, schoolId: string) {
  return db
    .selectFrom('stored_files')
    .select(['id', 'sha256', 'size_bytes'])
    .where('school_id', '=', schoolId)
    .execute();
}

/** The names in the school's files directory (none before the first upload). */
function names(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Resolves once the directory holds an object no row names: an upload is being written. */
async function uploadInFlight(db: Db, schoolId: string, dir: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const present = names(dir);
    if (present.some((n) => n.endsWith('.part'))) return;
    if (present.length > 0) {
      const named = new Set((await rows(db, schoolId)).map((r) => r.id));
      if (present.some((n) => !named.has(n))) return;
    }
    await sleep(1);
  }
  throw new Error('no upload was seen being written');
}

describe('uploads survive a crash of the server', () => {
  it('after kill -9 mid-upload only staged objects are left, and the sweep removes them and keeps every named file', async () => {
    const database = await createTestDatabase();
    const env = cliEnv(database, { PORT: '0', BASE_URL });
    const db = openDatabase(database.options);
    let child: ChildProcess | undefined;
    try {
      await migrateToLatest(db);
      const { school, token } = await crashSchoolOwner(db, BASE_URL);
      const dir = join(env.FILES_DIR, school.id);

      let crashedMidWrite = 0;
      for (let cycle = 0; cycle < CYCLES && crashedMidWrite === 0; cycle++) {
        child = spawnLectern(['serve'], env);
        const { url } = await untilListening(child);
        const sent = Array.from({ length: UPLOADS }, (_, i) => upload(url, token, png(4 * MB, i)));
        await uploadInFlight(db, school.id, dir);
        const killed = once(child, 'close');
        child.kill('SIGKILL');
        assert.equal((await killed)[1], 'SIGKILL');
        await Promise.all(sent);

        // Under a file's own name there is only ever a whole file its row names.
        const byId = new Map((await rows(db, school.id)).map((r) => [r.id, r]));
        const present = names(dir);
        for (const name of present.filter((n) => !n.endsWith('.part'))) {
          const row = byId.get(name);
          assert.ok(row, `${name} is on disk under a file's name but no row names it`);
          const bytes = readFileSync(join(dir, name));
          assert.equal(createHash('sha256').update(bytes).digest('hex'), row.sha256, `${name} is whole`);
        }
        if (present.some((n) => !byId.has(n.replace(/\.part$/, '')))) crashedMidWrite++;
      }
      assert.ok(crashedMidWrite > 0, 'at least one kill caught an upload mid-write');

      // The next server's sweep, once the grace period has passed (storage-sweep.ts).
      const done = await sweepOrphanFiles(
        db,
        localFileStore(env.FILES_DIR),
        Date.now() + ORPHAN_GRACE_MS + 60_000,
      );
      assert.ok(done.removed > 0, JSON.stringify(done));
      const left = await rows(db, school.id);
      assert.deepEqual(names(dir).sort(), left.map((r) => r.id).sort());
      for (const row of left) {
        const bytes = readFileSync(join(dir, row.id));
        assert.equal(bytes.length, row.size_bytes);
        assert.equal(createHash('sha256').update(bytes).digest('hex'), row.sha256);
      }
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'close');
        child.kill('SIGTERM');
        await exited;
      }
      await db.destroy();
      await database.drop();
    }
  });
});
