/**
 * A download streams: 20 clients that read a 25 MB lecture file slowly (they stop reading after
 * the first bytes) leave the server's memory about where it was, instead of holding the file once
 * per connection. A `lectern serve` child serves a free-preview lecture's file (no sign-in), half
 * the clients asking for the whole file and half for a byte range, and its resident set size is
 * read from /proc/<pid>/status before and while they hang; when they go away, so do its open
 * descriptors on the file.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { updateLecture } from '../../src/domain/catalog/curriculum.ts';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { localFileStore } from '../../src/domain/school/file-store.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { storeFile } from '../../src/domain/school/storage.ts';
import { migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { createTestDatabase } from '../support/database.ts';
import { cliEnv, spawnLectern, untilListening } from './run.ts';

const MB = 1024 * 1024;
const FILE_BYTES = 25 * MB;
const CLIENTS = 20;
/** Holding the file once per connection would add FILE_BYTES × CLIENTS (500 MB); streaming, little. */
const MAX_GROWTH = 100 * MB;

/** The process's resident set size in bytes (VmRSS, reported in kB). */
function rss(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!line) throw new Error('no VmRSS in /proc status');
  return Number(line[1]) * 1024;
}

/** The largest RSS seen over a few readings while the server settles. */
async function peakRss(pid: number, readings = 10): Promise<number> {
  let peak = 0;
  for (let i = 0; i < readings; i++) {
    peak = Math.max(peak, rss(pid));
    await sleep(100);
  }
  return peak;
}

/** How many descriptors the process holds open on `path`. */
function openOn(pid: number, path: string): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === path) n++;
    } catch {
      // closed while listed
    }
  }
  return n;
}

/** A client that reads the status, the headers and the first chunk, then stops reading. */
function slowReader(
  url: string,
  headers: Record<string, string>,
): Promise<{ res: http.IncomingMessage; req: http.ClientRequest }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers }, (res) => {
      res.once('data', () => {
        res.pause();
        resolve({ res, req });
      });
    });
    req.on('error', reject);
  });
}

/** Reads a whole response; its status and length. */
function download(url: string): Promise<{ status: number; length: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let length = 0;
        res.on('data', (d: Buffer) => {
          length += d.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, length }));
      })
      .on('error', reject);
  });
}

describe('downloads stream from the store', () => {
  it(`${CLIENTS} slow readers of a 25 MB lecture file grow the server's memory by well under the file per connection`, async (t) => {
    const database = await createTestDatabase();
    const env = cliEnv(database, { PORT: '0', BASE_URL: 'http://lectern.test', SEED_DEMO: 'false' });
    const db = openDatabase(database.options);
    let child: ChildProcess | undefined;
    const readers: Array<{ res: http.IncomingMessage; req: http.ClientRequest }> = [];
    try {
      await migrateToLatest(db);
      await seedDemoData(db);
      const school = (await findSchoolBySubdomain(db, 'demo'))!;
      // An MP4 by its first bytes (the store sniffs the `ftyp` box), 25 MB long.
      const bytes = new Uint8Array(FILE_BYTES).fill(7);
      bytes.set([0, 0, 0, 0x18, ...new TextEncoder().encode('ftypmp42')]);
      const file = await storeFile(db, localFileStore(env.FILES_DIR), FILE_BYTES, school.id, {
        bytes,
        contentType: 'video/mp4',
        filename: 'lecture.mp4',
      });
      // The free preview of a published demo course: anyone may download its file.
      const lecture = await db
        .selectFrom('lectures')
        .select('id')
        .where('school_id', '=', school.id)
        .where('title', '=', 'Welcome and setup')
        .executeTakeFirstOrThrow();
      await updateLecture(db, school.id, lecture.id, { fileId: file.id });

      child = spawnLectern(['serve'], env);
      const { url } = await untilListening(child);
      const fileUrl = `${url}/schools/demo/learn/files/${lecture.id}`;
      // Warm up: one whole download, so what any first request loads is in the baseline.
      assert.deepEqual(await download(fileUrl), { status: 200, length: FILE_BYTES });
      const pid = child.pid!;
      const baseline = await peakRss(pid, 5);

      for (let i = 0; i < CLIENTS; i++) {
        readers.push(await slowReader(fileUrl, i % 2 === 0 ? {} : { range: 'bytes=1000-' }));
      }
      assert.deepEqual(
        readers.map((r) => r.res.statusCode),
        Array.from({ length: CLIENTS }, (_, i) => (i % 2 === 0 ? 200 : 206)),
      );
      const during = await peakRss(pid);
      const growth = during - baseline;
      t.diagnostic(
        `RSS baseline ${(baseline / MB).toFixed(1)} MB, with ${CLIENTS} slow readers ${(during / MB).toFixed(1)} MB (+${(growth / MB).toFixed(1)} MB)`,
      );
      assert.ok(
        growth < MAX_GROWTH,
        `RSS grew by ${(growth / MB).toFixed(1)} MB with ${CLIENTS} slow readers of a ${FILE_BYTES / MB} MB file`,
      );
      // Each hanging download holds the file open; a client that goes away closes it.
      const path = join(env.FILES_DIR, school.id, file.id);
      assert.equal(openOn(pid, path), CLIENTS);
      for (const r of readers.splice(0)) r.req.destroy();
      for (let i = 0; i < 200 && openOn(pid, path) > 0; i++) await sleep(50);
      assert.equal(openOn(pid, path), 0, 'every abandoned download closed its file');
    } finally {
      for (const r of readers) r.req.destroy();
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
