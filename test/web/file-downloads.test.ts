/**
 * Every file download (the learning area's lecture files, the storage API, the console's files
 * page) streams from the store with HEAD and one byte range (RFC 9110 §9.3.2, §13.1.5, §14);
 * names lose their bidirectional controls wherever a file is uploaded; the storage sweep removes
 * the objects no row names and puts back a file whose move was interrupted.
 */
import assert from 'node:assert/strict';
import { readdir, rename, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { updateLecture } from '../../src/domain/catalog/curriculum.ts';
import { localFileStore } from '../../src/domain/school/file-store.ts';
import { jobs as schoolJobs } from '../../src/domain/school/jobs.ts';
import { storeFile } from '../../src/domain/school/storage.ts';
import { ORPHAN_GRACE_MS } from '../../src/domain/school/storage-sweep.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import type { Browser } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { csrfOf, signedIn } from './pages-support.ts';

const LEARN = '/schools/demo/learn';
// An MP4 (its `ftyp` box sniffs as one) of 1000 bytes, each byte its position mod 251.
const SIZE = 1000;
const MP4 = new Uint8Array(SIZE).map((_, i) => i % 251);
MP4.set([0, 0, 0, 0x18, ...new TextEncoder().encode('ftypmp42')]);
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
// U+202E (right-to-left override) shows `report‮fdp.exe.txt` as "reporttxt.exe.pdf".
const RLO_NAME = 'report\u202Efdp.exe.txt';
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

interface ApiFile {
  id: string;
  filename: string;
  sha256: string;
  created_at: string;
}

describe('file downloads stream with HEAD and byte ranges; names lose bidirectional controls', () => {
  let t: TestApp;
  let world: World;
  let demo: string;
  let token: string;
  let owner: Browser;
  let video: ApiFile;
  let learnUrl: string;

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    demo = world.demo.schoolId;
    token = await world.demo.token();
    owner = await signedIn(t, 'owner@example.com');
    const stored = await storeFile(t.runtime.db, localFileStore(t.config.filesDir), 1_000_000, demo, {
      bytes: MP4,
      contentType: 'video/mp4',
      filename: 'welcome.mp4',
    });
    video = { id: stored.id, filename: stored.filename, sha256: stored.sha256, created_at: stored.createdAt };
    // The free preview of a published course: its file reaches anyone, no sign-in.
    const lecture = await t.runtime.db
      .selectFrom('lectures')
      .select('id')
      .where('school_id', '=', demo)
      .where('title', '=', 'Welcome and setup')
      .executeTakeFirstOrThrow();
    await updateLecture(t.runtime.db, demo, lecture.id, { fileId: stored.id });
    learnUrl = `${LEARN}/files/${lecture.id}`;
  });
  after(() => t.close());

  const bearer = () => ({ authorization: `Bearer ${token}` });
  const apiUrl = () => `/api/v1/storage/files/${video.id}/content`;
  const consoleUrl = () => `/admin/${demo}/files/${video.id}/download`;
  const bytes = async (res: Response) => new Uint8Array(await res.arrayBuffer());
  const lastModified = () => new Date(video.created_at).toUTCString();

  /** The three download routes, each with what it needs to be let in. */
  const routes = (): Array<[string, (init?: RequestInit) => Promise<Response>]> => [
    ['learning area', (init) => t.request(learnUrl, init)],
    [
      'storage API',
      (init) => t.request(apiUrl(), { ...init, headers: { ...bearer(), ...(init?.headers ?? {}) } }),
    ],
    ['console', (init) => owner.request(consoleUrl(), init)],
  ];

  it('GET sends the whole file with its validators and Accept-Ranges (RFC 9110 §14.3, §8.8)', async () => {
    for (const [name, get] of routes()) {
      const res = await get();
      assert.equal(res.status, 200, name);
      assert.equal(res.headers.get('content-type'), 'video/mp4', name);
      assert.equal(res.headers.get('content-length'), String(SIZE), name);
      assert.equal(res.headers.get('accept-ranges'), 'bytes', name);
      assert.equal(res.headers.get('etag'), `"${video.sha256}"`, name);
      assert.equal(res.headers.get('last-modified'), lastModified(), name);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', name);
      assert.equal(res.headers.get('content-security-policy'), "default-src 'none'; sandbox", name);
      assert.deepEqual(await bytes(res), MP4, name);
    }
    const learn = await t.request(learnUrl);
    assert.equal(
      learn.headers.get('content-disposition'),
      `inline; filename="welcome.mp4"; filename*=UTF-8''welcome.mp4`,
    );
    assert.equal(learn.headers.get('cache-control'), 'private, no-store');
    const api = await t.request(apiUrl(), { headers: bearer() });
    assert.equal(
      api.headers.get('content-disposition'),
      `attachment; filename="welcome.mp4"; filename*=UTF-8''welcome.mp4`,
    );
    assert.equal(api.headers.get('cache-control'), 'no-store');
  });

  it('HEAD gives the headers of the whole file and no body, a Range included (RFC 9110 §9.3.2, §14.2)', async () => {
    for (const [name, get] of routes()) {
      for (const headers of [{}, { range: 'bytes=0-9' }] as Array<Record<string, string>>) {
        const res = await get({ method: 'HEAD', headers });
        assert.equal(res.status, 200, name);
        assert.equal(res.headers.get('content-length'), String(SIZE), name);
        assert.equal(res.headers.get('content-type'), 'video/mp4', name);
        assert.equal(res.headers.get('etag'), `"${video.sha256}"`, name);
        assert.equal(res.headers.get('content-range'), null, name);
        assert.equal((await bytes(res)).length, 0, name);
      }
    }
  });

  it('one byte range is 206 with Content-Range and just those bytes (RFC 9110 §14.1.2, §15.3.7)', async () => {
    const cases: Array<[string, number, number]> = [
      ['bytes=10-19', 10, 19],
      ['bytes=990-', 990, 999],
      ['bytes=-5', 995, 999],
      ['bytes=-5000', 0, 999],
      ['bytes=500-99999', 500, 999],
      ['BYTES=0-0', 0, 0],
    ];
    for (const [name, get] of routes()) {
      for (const [range, start, end] of cases) {
        const res = await get({ headers: { range } });
        assert.equal(res.status, 206, `${name} ${range}`);
        assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/${SIZE}`, `${name} ${range}`);
        assert.equal(res.headers.get('content-length'), String(end - start + 1), `${name} ${range}`);
        assert.equal(res.headers.get('content-type'), 'video/mp4', `${name} ${range}`);
        assert.deepEqual(await bytes(res), MP4.subarray(start, end + 1), `${name} ${range}`);
      }
    }
  });

  it('a range beyond the file is 416 with `Content-Range: bytes */1000` (RFC 9110 §14.1.3, §15.5.17)', async () => {
    for (const [name, get] of routes()) {
      for (const range of ['bytes=1000-', 'bytes=5000-6000', 'bytes=-0']) {
        const res = await get({ headers: { range } });
        assert.equal(res.status, 416, `${name} ${range}`);
        assert.equal(res.headers.get('content-range'), `bytes */${SIZE}`, `${name} ${range}`);
        assert.equal((await bytes(res)).length, 0, `${name} ${range}`);
      }
    }
  });

  it('a malformed Range, another unit or several ranges are ignored: the whole file (RFC 9110 §14.2)', async () => {
    const ignored = ['bytes=abc', 'bytes=20-10', 'items=0-9', 'bytes=0-1,5-6', 'bytes=', 'bytes=-', '0-9'];
    for (const [name, get] of routes()) {
      for (const range of ignored) {
        const res = await get({ headers: { range } });
        assert.equal(res.status, 200, `${name} ${range}`);
        assert.equal(res.headers.get('content-range'), null, `${name} ${range}`);
        assert.deepEqual(await bytes(res), MP4, `${name} ${range}`);
      }
    }
  });

  it('If-Range: the range only when the strong ETag or the exact Last-Modified matches (RFC 9110 §13.1.5)', async () => {
    const etag = `"${video.sha256}"`;
    for (const [name, get] of routes()) {
      for (const ifRange of [etag, lastModified()]) {
        const res = await get({ headers: { range: 'bytes=0-3', 'if-range': ifRange } });
        assert.equal(res.status, 206, `${name} ${ifRange}`);
        assert.deepEqual(await bytes(res), MP4.subarray(0, 4));
      }
      const changed = ['"other"', `W/${etag}`, new Date(Date.parse(video.created_at) - 60_000).toUTCString()];
      for (const ifRange of changed) {
        const res = await get({ headers: { range: 'bytes=0-3', 'if-range': ifRange } });
        assert.equal(res.status, 200, `${name} ${ifRange}`);
        assert.deepEqual(await bytes(res), MP4, `${name} ${ifRange}`);
      }
    }
  });

  it('a file whose bytes are missing is the API’s 404 problem, for GET and HEAD', async () => {
    const lost = await storeFile(t.runtime.db, localFileStore(t.config.filesDir), 1_000_000, demo, {
      bytes: PNG,
      contentType: 'image/png',
      filename: 'lost.png',
    });
    await localFileStore(t.config.filesDir).delete(`${demo}/${lost.id}`);
    const res = await t.request(`/api/v1/storage/files/${lost.id}/content`, { headers: bearer() });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    const head = await t.request(`/api/v1/storage/files/${lost.id}/content`, {
      method: 'HEAD',
      headers: bearer(),
    });
    assert.equal(head.status, 404);
  });

  it('the storage API strips bidirectional controls from names, raw and multipart (Unicode UAX #9)', async () => {
    const raw = await t.request(`/api/v1/storage/files?filename=${encodeURIComponent(RLO_NAME)}`, {
      method: 'POST',
      headers: { ...bearer(), 'content-type': 'text/plain' },
      body: 'quarterly figures',
    });
    assert.equal(raw.status, 201);
    const file = (await raw.json()) as ApiFile;
    assert.equal(file.filename, 'reportfdp.exe.txt');
    const dl = await t.request(`/api/v1/storage/files/${file.id}/content`, { headers: bearer() });
    assert.equal(
      dl.headers.get('content-disposition'),
      `attachment; filename="reportfdp.exe.txt"; filename*=UTF-8''reportfdp.exe.txt`,
    );

    const form = new FormData();
    form.set(
      'file',
      new File([PNG], '\u2067logo\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u2066\u2068.png', {
        type: 'image/png',
      }),
    );
    const multi = await t.request('/api/v1/storage/files', { method: 'POST', headers: bearer(), body: form });
    assert.equal(multi.status, 201);
    assert.equal(((await multi.json()) as ApiFile).filename, 'logo.png');
  });

  it('the console’s upload and the curriculum editor’s upload strip them too', async () => {
    const files = `/admin/${demo}/files`;
    const form = new FormData();
    form.set('csrf_token', await csrfOf(owner, files));
    form.set('file', new File(['a table'], `console-${RLO_NAME}`, { type: 'text/plain' }));
    const uploaded = await owner.request(files, { method: 'POST', body: form });
    assert.equal(uploaded.status, 303);

    const course = world.demo.courseIds.sql;
    const editor = `/admin/${demo}/courses/${course}/curriculum`;
    const sections = await t.request(`/api/v1/courses/${course}/curriculum`, { headers: bearer() });
    const section = ((await sections.json()) as { sections: Array<{ id: string }> }).sections[0];
    const page = `${editor}/sections/${section.id}/lectures/new?type=file`;
    const lecture = new FormData();
    lecture.set('csrf_token', await csrfOf(owner, page));
    for (const [k, v] of Object.entries({ title: 'Handout', type: 'file', shown: 'file', file_id: '' }))
      lecture.set(k, v);
    lecture.set('upload', new File(['notes'], `curriculum-${RLO_NAME}`, { type: 'text/plain' }));
    const added = await owner.request(`${editor}/sections/${section.id}/lectures`, {
      method: 'POST',
      body: lecture,
    });
    assert.equal(added.status, 303);

    const list = await t.request('/api/v1/storage/files?limit=100', { headers: bearer() });
    const names = ((await list.json()) as { data: ApiFile[] }).data.map((f) => f.filename);
    assert.ok(names.includes('console-reportfdp.exe.txt'), names.join(', '));
    assert.ok(names.includes('curriculum-reportfdp.exe.txt'), names.join(', '));
    assert.ok(!names.some((n) => BIDI.test(n)), names.join(', '));
  });

  it('the storage sweep removes old objects no row names, keeps the rest, and finishes an interrupted move', async () => {
    const store = localFileStore(t.config.filesDir);
    const dir = join(t.config.filesDir, demo);
    const upload = async (name: string) => {
      const res = await t.request(`/api/v1/storage/files?filename=${name}`, {
        method: 'POST',
        headers: { ...bearer(), 'content-type': 'image/png' },
        body: PNG,
      });
      assert.equal(res.status, 201);
      return ((await res.json()) as ApiFile).id;
    };
    // A row whose bytes were staged but never moved into place (killed between commit and move).
    const interrupted = await upload('interrupted.png');
    await rename(join(dir, interrupted), join(dir, `${interrupted}.part`));
    const gone = await t.request(`/api/v1/storage/files/${interrupted}/content`, { headers: bearer() });
    assert.equal(gone.status, 404);
    // Objects no row names: a staged upload that never committed, bytes whose row is gone.
    const orphans = ['fil_0000000000orphanstaged0.part', 'fil_0000000000orphanfinal00'];
    for (const name of orphans) await writeFile(join(dir, name), PNG);
    // Within the grace period even an orphan is left alone: it may be an upload in flight.
    const fresh = 'fil_0000000000orphanfresh00.part';
    const now = Date.now();
    const old = new Date(now - ORPHAN_GRACE_MS - 60_000);
    for (const name of [...orphans, `${interrupted}.part`]) await utimes(join(dir, name), old, old);
    const before = new Set(await readdir(dir));

    await writeFile(join(dir, fresh), PNG);
    const done = await schoolJobs[0].run(t.runtime.db, now, t.config);
    assert.deepEqual(done, { removed: 2, recovered: 1 });

    const after = new Set(await readdir(dir));
    for (const name of orphans) assert.ok(!after.has(name), `${name} swept`);
    assert.ok(after.has(fresh), 'the fresh object is kept');
    assert.ok(after.has(interrupted) && !after.has(`${interrupted}.part`), 'the move is finished');
    const rows = await t.runtime.db.selectFrom('stored_files').select('storage_key').execute();
    for (const r of rows) {
      const name = r.storage_key.split('/')[1];
      if (before.has(name)) assert.ok(after.has(name), `${name} kept`);
    }
    assert.equal(after.size, before.size - orphans.length + 1);
    const back = await t.request(`/api/v1/storage/files/${interrupted}/content`, { headers: bearer() });
    assert.equal(back.status, 200);
    assert.deepEqual(await bytes(back), PNG);
    await store.discard(`${demo}/${fresh.slice(0, -'.part'.length)}`);
  });
});
