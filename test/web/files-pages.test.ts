import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import type { Browser } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { assertPageHeaders, csrfOf, locationOf, signedIn } from './pages-support.ts';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

interface StoredFile {
  id: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  created_at: string;
}

describe('/admin/<school>/files: the school’s files and the upload form', () => {
  let t: TestApp;
  let world: World;
  let demo: string;
  let owner: Browser;
  let token: string;
  let files: string;

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    demo = world.demo.schoolId;
    // A school away from UTC, so the page's times are visibly the school's.
    await t.runtime.db
      .updateTable('schools')
      .set({ timezone: 'America/New_York' })
      .where('id', '=', demo)
      .execute();
    owner = await signedIn(t, 'owner@example.com');
    token = await world.demo.token();
    files = `/admin/${demo}/files`;
  });
  after(() => t.close());

  async function stored(): Promise<StoredFile[]> {
    const res = await t.request('/api/v1/storage/files', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    return ((await res.json()) as { data: StoredFile[] }).data;
  }

  async function upload(file: File | undefined, csrf?: string): Promise<Response> {
    const form = new FormData();
    form.set('csrf_token', csrf ?? (await csrfOf(owner, files)));
    form.set('file', file ?? new File([], ''));
    return owner.request(files, { method: 'POST', body: form });
  }

  it('lists no files at first, with the upload form (multipart, CSRF field, accepted types in words)', async () => {
    const res = await owner.request(files);
    assert.equal(res.status, 200);
    assertPageHeaders(res);
    const page = await res.text();
    assert.match(page, /<h1>Files<\/h1>/);
    assert.match(page, /<p class="muted">No files yet\.<\/p>/);
    assert.match(
      page,
      /<form method="post" action="\/admin\/[^"]+\/files" enctype="multipart\/form-data" novalidate>\n<input type="hidden" name="csrf_token" value="[^"]+">/,
    );
    assert.match(page, /<input id="file" name="file" type="file" required aria-describedby="file-hint">/);
    assert.match(
      page,
      /Accepted: images \(PNG, JPEG, GIF, WebP\), PDF, ZIP, EPUB, MP4 and WebM video, MP3 and MP4 audio, plain text, CSV and Markdown; up to 26.2 MB\./,
    );
    assert.match(page, /<a href="\/admin\/[^"]+\/files" aria-current="page">Files<\/a>/);
  });

  it('uploads a PNG through the storage operation and lists it by name, type, size and time in the school’s zone', async () => {
    const res = await upload(new File([PNG], 'logo.png', { type: 'image/png' }));
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `${files}?done=uploaded`);
    const [file] = await stored();
    assert.deepEqual([file.filename, file.content_type, file.size_bytes], ['logo.png', 'image/png', 16]);
    const page = await (await owner.request(locationOf(res))).text();
    assert.match(page, /<div class="notice success" role="status"><p>The file was uploaded\.<\/p><\/div>/);
    const when = new Intl.DateTimeFormat('en', {
      timeZone: 'America/New_York',
      dateStyle: 'medium',
      timeStyle: 'short',
    }).format(new Date(file.created_at));
    assert.ok(
      page.includes(
        `<tr>\n<td>logo.png</td>\n<td>PNG image</td>\n<td>16 bytes</td>\n<td><time datetime="${file.created_at}">${when}</time></td>\n<td><a href="${files}/${file.id}/download">Download`,
      ),
      'the row in words',
    );
    assert.match(page, /<div class="table-wrap" role="region" aria-label="Files" tabindex="0"><table>/);
    assert.doesNotMatch(page, />[^<]*fil_[0-9a-z]{26}/, 'no raw ids as text');
  });

  it('sizes read as people say them', async () => {
    const { fileSize } = await import('../../src/web/shared/school-format.ts');
    const en = { locale: 'en' };
    assert.deepEqual(
      [
        fileSize(en, 1),
        fileSize(en, 512),
        fileSize(en, 18_213),
        fileSize(en, 1_234_567),
        fileSize({ locale: 'de' }, 1_234_567),
      ],
      ['1 byte', '512 bytes', '18.2 kB', '1.2 MB', '1,2 MB'],
    );
  });

  it('a refused type is the page again with the reason in words (415), nothing stored', async () => {
    const before = await stored();
    const res = await upload(new File(['<script>alert(1)</script>'], 'page.html', { type: 'text/html' }));
    assert.equal(res.status, 415);
    assertPageHeaders(res);
    const page = await res.text();
    assert.match(
      page,
      /<p class="field-error" id="file-error" role="alert">This kind of file cannot be stored\. Accepted: images \(PNG, JPEG, GIF, WebP\), PDF/,
    );
    assert.match(page, /aria-describedby="file-hint file-error" aria-invalid="true"/);
    assert.deepEqual(await stored(), before);
  });

  it('content that is not what it claims is refused in words', async () => {
    const res = await upload(new File(['just text'], 'fake.png', { type: 'image/png' }));
    assert.equal(res.status, 415);
    assert.match(await res.text(), /The file’s content does not match its type/);
  });

  it('no file chosen is the page again (422)', async () => {
    const res = await upload(undefined);
    assert.equal(res.status, 422);
    assert.match(
      await res.text(),
      /<p class="field-error" id="file-error" role="alert">Choose a file to upload\.<\/p>/,
    );
  });

  it('an upload without the CSRF token is refused with 403 and stores nothing', async () => {
    const before = await stored();
    const res = await upload(new File([PNG], 'forged.png', { type: 'image/png' }), 'wrong');
    assert.equal(res.status, 403);
    assert.match(await res.text(), /This form has expired or did not come from this site/);
    const plain = await owner.postForm(files, { csrf_token: await csrfOf(owner, files) });
    assert.equal(plain.status, 415, 'the upload form is multipart only');
    assert.deepEqual(await stored(), before);
  });

  it('a body over the server’s limit gets a page saying what to do (413), not a problem document', async () => {
    // The files page takes uploads: the upload limit applies there, as at the storage API.
    const limit = t.config.uploadLimitBytes;
    const form = new FormData();
    form.set('csrf_token', await csrfOf(owner, files));
    form.set('file', new File([new Uint8Array(limit + 1)], 'huge.mp4', { type: 'video/mp4' }));
    const body = new Uint8Array(await new Response(form).arrayBuffer());
    const type = new Response(form).headers.get('content-type') ?? '';
    const res = await owner.request(files, {
      method: 'POST',
      headers: { 'content-type': type, 'content-length': String(body.length), accept: 'text/html' },
      body,
    });
    assert.equal(res.status, 413);
    assertPageHeaders(res);
    const page = await res.text();
    assert.match(page, /<h1>File too large<\/h1>/);
    assert.match(page, /larger than this server accepts \(26.2 MB\)/);
    assert.match(page, /ask the people who run this Lectern server to raise its upload limit/);
    assert.match(page, new RegExp(`<a href="${files}">Back to the files</a>`));
    // API clients keep their problem document.
    const small = t.config.bodyLimitBytes;
    const api = await t.request('/api/v1/courses', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(small + 1) },
      body: 'x'.repeat(small + 1),
    });
    assert.equal(api.status, 413);
    assert.match(api.headers.get('content-type') ?? '', /application\/problem\+json/);
  });

  it('the 413 page leads back to the page the form was on, in words that fit', async () => {
    const limit = t.config.uploadLimitBytes;
    const course = world.demo.courseIds.sql;
    const curriculum = `/admin/${demo}/courses/${course}/curriculum`;
    /** A POST declaring a body over the upload limit: refused by the declared length alone. */
    const tooLarge = (path: string) =>
      owner.request(path, {
        method: 'POST',
        headers: {
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(limit + 1),
          accept: 'text/html',
        },
        body: '--x--',
      });
    const back = async (path: string) => {
      const res = await tooLarge(path);
      assert.equal(res.status, 413, path);
      const page = await res.text();
      assert.match(page, /<h1>File too large<\/h1>/);
      return /<p><a href="([^"]*)">([^<]*)<\/a><\/p>\s*$/m
        .exec(page.slice(page.indexOf('<h1>File too large')))
        ?.slice(1);
    };
    // The lecture forms of the curriculum editor (the upload paths there): back to the editor.
    assert.deepEqual(await back(`${curriculum}/lectures/lec_01jf3k6m2v8w9x0y1z2a3b4c5d/edit`), [
      curriculum,
      'Back to the curriculum',
    ]);
    assert.deepEqual(await back(`${curriculum}/sections/sec_01jf3k6m2v8w9x0y1z2a3b4c5d/lectures`), [
      curriculum,
      'Back to the curriculum',
    ]);
    // Its url-encoded forms too (over the smaller body limit).
    assert.deepEqual(await back(`${curriculum}/sections`), [curriculum, 'Back to the curriculum']);
    assert.deepEqual(await back(files), [files, 'Back to the files']);
    // Any other console page: the console's home.
    assert.deepEqual(await back(`/admin/${demo}/courses/${course}/edit`), [
      `/admin/${demo}`,
      'Back to the admin area',
    ]);
  });

  it('a file downloads with the storage API’s headers, and is deleted only from its confirmation page', async () => {
    const made = await upload(new File([PNG], 'to-delete.png', { type: 'image/png' }));
    assert.equal(made.status, 303);
    const file = (await stored()).find((f) => f.filename === 'to-delete.png');
    assert.ok(file);
    const list = await (await owner.request(files)).text();
    assert.match(
      list,
      new RegExp(
        `<a href="${files}/${file.id}/download">Download<span class="visually-hidden"> to-delete.png</span></a>`,
      ),
    );

    const dl = await owner.request(`${files}/${file.id}/download`);
    assert.equal(dl.status, 200);
    assert.equal(dl.headers.get('content-type'), 'image/png');
    assert.equal(
      dl.headers.get('content-disposition'),
      `attachment; filename="to-delete.png"; filename*=UTF-8''to-delete.png`,
    );
    assert.equal(dl.headers.get('cache-control'), 'private, no-store');
    assert.deepEqual(new Uint8Array(await dl.arrayBuffer()), PNG);

    const ask = await owner.request(`${files}/${file.id}/delete`);
    assert.equal(ask.status, 200);
    const page = await ask.text();
    assert.match(page, /<h1>Delete “to-delete\.png”\?<\/h1>/);
    assert.match(page, /<button class="danger" type="submit">Delete file<\/button>/);
    // Without the confirmation page's field, nothing is deleted.
    const csrf = await csrfOf(owner, `${files}/${file.id}/delete`);
    const bare = await owner.postForm(`${files}/${file.id}/delete`, { csrf_token: csrf });
    assert.equal(bare.status, 303);
    assert.equal(locationOf(bare), `${files}/${file.id}/delete`);
    assert.ok((await stored()).some((f) => f.id === file.id));
    const gone = await owner.postForm(`${files}/${file.id}/delete`, { csrf_token: csrf, confirm: 'yes' });
    assert.equal(gone.status, 303);
    assert.equal(locationOf(gone), `${files}?done=deleted`);
    assert.ok(!(await stored()).some((f) => f.id === file.id));
    assert.match(await (await owner.request(`${files}?done=deleted`)).text(), /The file was deleted\./);
    // A deleted, unknown or another school's file: the same 404 page.
    for (const id of [file.id, 'fil_nowhere']) {
      const res = await owner.request(`${files}/${id}/download`);
      assert.equal(res.status, 404);
      assert.match(await res.text(), /No such file/);
    }
  });

  it('another school’s operator pages stay closed: a student gets 403', async () => {
    const student = await signedIn(t, 'student@example.com');
    assert.equal((await student.request(files)).status, 403);
    assert.equal((await owner.request(`/admin/${world.other.schoolId}/files`)).status, 403);
  });
});
