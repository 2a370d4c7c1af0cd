/**
 * A lecture references only files whoever saves it may read (domain/catalog/curriculum.ts
 * checkLectureFile): a lecturer the files they uploaded and those already on a lecture of a
 * course they teach, never another course's file (which the learning area would then hand to
 * their students, or a free preview to anyone); owners and admins any file of their school, and
 * no school another school's. Over REST and through the console's curriculum editor.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { updateLecture } from '../../src/domain/catalog/curriculum.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import type { Browser } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { csrfOf, signedIn } from './pages-support.ts';

const PDF = new TextEncoder().encode('%PDF-1.4\n% paid answers of another course\n');

describe('a lecture points only at files its editor may read', () => {
  let t: TestApp;
  let world: World;
  let token: string;
  let leo: Browser;
  let byTitle: Map<string, string>;
  let sqlFile: string;
  let ownFile: string;

  /** Uploads through REST as the school's owner. */
  async function upload(name: string): Promise<string> {
    const res = await t.request(`/api/v1/storage/files?filename=${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/pdf' },
      body: PDF,
    });
    assert.equal(res.status, 201);
    return ((await res.json()) as { id: string }).id;
  }

  const patchLecture = (lectureId: string, body: Record<string, unknown>) =>
    t.request(`/api/v1/lectures/${lectureId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** Leo's lecture form in the editor of a course he teaches, POSTed as the page posts it. */
  async function leoSaves(lectureId: string, fields: Record<string, string | File>): Promise<Response> {
    const editor = `/admin/${world.demo.schoolId}/courses/${world.demo.courseIds.typescript}/curriculum`;
    const page = `${editor}/lectures/${lectureId}/edit`;
    const form = new FormData();
    form.set('csrf_token', await csrfOf(leo, page));
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    return leo.request(page, { method: 'POST', body: form });
  }

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    token = await world.demo.token();
    leo = await signedIn(t, 'lecturer@example.com');
    const rows = await t.runtime.db
      .selectFrom('lectures')
      .select(['id', 'title'])
      .where('school_id', '=', world.demo.schoolId)
      .execute();
    byTitle = new Map(rows.map((r) => [r.title, r.id]));
    // A file of the school Leo neither uploaded nor finds on a course he teaches, and one on a
    // lecture of his TypeScript course.
    sqlFile = await upload('sql-answers.pdf');
    ownFile = await upload('cheat-sheet.pdf');
    await updateLecture(t.runtime.db, world.demo.schoolId, byTitle.get('Cheat sheet (PDF)')!, {
      fileId: ownFile,
    });
  });
  after(() => t.close());

  const fileLecture = () => byTitle.get('Cheat sheet (PDF)')!;
  const fileOf = async (id: string) =>
    (
      await t.runtime.db
        .selectFrom('lectures')
        .select('file_id')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).file_id;

  it("REST: an owner points a lecture at any file of the school, never at another school's (422 naming body.file_id)", async () => {
    const ok = await patchLecture(fileLecture(), { file_id: sqlFile });
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as { file_id: string }).file_id, sqlFile);
    const otherToken = await world.other.token();
    const foreign = await t.request('/api/v1/storage/files?filename=x.pdf', {
      method: 'POST',
      headers: { authorization: `Bearer ${otherToken}`, 'content-type': 'application/pdf' },
      body: PDF,
    });
    const foreignId = ((await foreign.json()) as { id: string }).id;
    const refused = await patchLecture(fileLecture(), { file_id: foreignId });
    assert.equal(refused.status, 422);
    const problem = (await refused.json()) as {
      code: string;
      errors: Array<{ field: string; message: string }>;
    };
    assert.equal(problem.code, 'validation_failed');
    assert.deepEqual(problem.errors, [{ field: 'body.file_id', message: 'no such file at this school' }]);
    assert.equal(await fileOf(fileLecture()), sqlFile);
    const back = await patchLecture(fileLecture(), { file_id: ownFile });
    assert.equal(back.status, 200);
  });

  it("the console editor: a lecturer cannot point their lecture at another course's file; the refusal is beside the field", async () => {
    const res = await leoSaves(fileLecture(), {
      title: 'Cheat sheet (PDF)',
      type: 'file',
      shown: 'file',
      file_id: sqlFile,
      free_preview: 'on',
    });
    assert.equal(res.status, 422);
    assert.match(
      await res.text(),
      /<p class="field-error" id="lecture-file-error">Choose one of the school’s files\.<\/p>/,
    );
    assert.equal(await fileOf(fileLecture()), ownFile, 'the lecture still has its own file');
    const download = await leo.request(`/schools/demo/learn/files/${fileLecture()}`);
    assert.equal(download.status, 200);
    assert.equal(await download.text(), new TextDecoder().decode(PDF), 'the download is still its own file');
  });

  it('the console editor: a lecturer keeps a file already on their course, and uses one they upload', async () => {
    const kept = await leoSaves(fileLecture(), {
      title: 'Cheat sheet (PDF)',
      type: 'file',
      shown: 'file',
      file_id: ownFile,
    });
    assert.equal(kept.status, 303);
    const uploaded = await leoSaves(fileLecture(), {
      title: 'Cheat sheet (PDF)',
      type: 'file',
      shown: 'file',
      file_id: '',
      upload: new File([PDF], 'leo-notes.pdf', { type: 'application/pdf' }),
    });
    assert.equal(uploaded.status, 303);
    const leosFile = await fileOf(fileLecture());
    assert.ok(leosFile && leosFile !== ownFile && leosFile !== sqlFile);
    // Leo's own upload may go on another lecture of his course.
    const generics = byTitle.get('Generics')!;
    const again = await leoSaves(generics, {
      title: 'Generics',
      type: 'video',
      shown: 'video',
      file_id: leosFile,
      video_url: '',
    });
    assert.equal(again.status, 303);
    assert.equal(await fileOf(generics), leosFile);
  });
});
