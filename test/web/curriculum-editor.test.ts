import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../support/app.ts';
import { ENGINE } from '../support/database.ts';
import type { Browser } from '../support/oauth-flow.ts';
import { formFields } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { assertPageHeaders, csrfOf, locationOf, signedIn, submit } from './pages-support.ts';

interface Lecture {
  id: string;
  title: string;
  type: string;
  duration_seconds: number;
  is_free_preview: boolean;
  position: number;
  body: string | null;
  video_url: string | null;
  file_id: string | null;
}
interface Section {
  id: string;
  title: string;
  position: number;
  lectures: Lecture[];
}

// A PNG signature and an MP4 `ftyp` box: enough for the storage's content check.
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
const MP4 = new Uint8Array([0, 0, 0, 24, ...new TextEncoder().encode('ftypisom'), 0, 0, 2, 0]);

describe('/admin/<school>/courses/<course>/curriculum: the curriculum editor', () => {
  let t: TestApp;
  let world: World;
  let demo: string;
  let owner: Browser;
  let token: string;
  let course: string;
  let editor: string;

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    demo = world.demo.schoolId;
    owner = await signedIn(t, 'owner@example.com');
    token = await world.demo.token();
    course = world.demo.courseIds.sql;
    editor = `/admin/${demo}/courses/${course}/curriculum`;
  });
  after(() => t.close());

  /** The course's curriculum through the admin API. */
  async function curriculum(courseId = course): Promise<Section[]> {
    const res = await t.request(`/api/v1/courses/${courseId}/curriculum`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200);
    return ((await res.json()) as { sections: Section[] }).sections;
  }
  const titles = (sections: Section[]) => sections.map((s) => s.title);

  async function addSection(title: string): Promise<Section> {
    const res = await submit(owner, editor, `${editor}/sections`, { title });
    assert.equal(res.status, 303);
    const section = (await curriculum()).find((s) => s.title === title);
    assert.ok(section, `section ${title} was added`);
    return section;
  }

  /** POSTs a lecture form (multipart, as the page's form does) with the page's CSRF token. */
  async function postLecture(page: string, action: string, fields: Record<string, string | File>) {
    const form = new FormData();
    form.set('csrf_token', await csrfOf(owner, page));
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    return owner.request(action, { method: 'POST', body: form });
  }

  it('shows the course, its sections and lectures in order, with types, durations and previews in words', async () => {
    const ts = world.demo.courseIds.typescript;
    const res = await owner.request(`/admin/${demo}/courses/${ts}/curriculum`);
    assert.equal(res.status, 200);
    assertPageHeaders(res);
    const page = await res.text();
    assert.match(page, /<h1>Getting Started with TypeScript<\/h1>/);
    assert.match(page, /Curriculum: 2 sections, 6 lectures\./);
    const order = [...page.matchAll(/<h2 id="section-[^"]+">([^<]+)<\/h2>/g)].map((m) => m[1]);
    assert.deepEqual(order, ['1. Foundations', '2. Putting it to work']);
    const lectures = [
      ...page.matchAll(/<strong>([^<]+)<\/strong><br><span class="muted">([^<]*)<\/span>/g),
    ].map((m) => `${m[1]} | ${m[2]}`);
    assert.deepEqual(lectures, [
      'Welcome and setup | Video · 8 min',
      'Types and values | Video · 12 min 30 s',
      'Reading: compiler options | Text · 10 min',
      'Generics | Video · 15 min',
      'Check your understanding | Quiz · 5 min',
      'Cheat sheet (PDF) | File',
    ]);
    assert.equal(page.match(/<span class="badge">Free preview<\/span>/g)?.length, 1);
    // The first section cannot move up, the last cannot move down; lectures likewise.
    assert.doesNotMatch(page, /aria-label="Move up: section “Foundations”"/);
    assert.match(page, /aria-label="Move down: section “Foundations”"/);
    assert.doesNotMatch(page, /aria-label="Move down: section “Putting it to work”"/);
    assert.doesNotMatch(page, /aria-label="Move up: lecture “Welcome and setup”"/);
    assert.match(page, /aria-label="Move up: lecture “Types and values”"/);
    assert.doesNotMatch(page, />[^<]*(lec|sec|crs)_[0-9a-z]{26}[^<]*</, 'no raw ids as text');
  });

  it("another school's course, an unknown one and a malformed id are the same 404 page", async () => {
    const other = world.other.courseIds.other;
    const bodies: string[] = [];
    for (const id of [other, 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d', 'nope']) {
      const res = await owner.request(`/admin/${demo}/courses/${id}/curriculum`);
      assert.equal(res.status, 404, id);
      assertPageHeaders(res);
      bodies.push((await res.text()).replace(/name="csrf_token" value="[^"]*"/g, ''));
    }
    assert.equal(bodies[0], bodies[1]);
    assert.equal(bodies[0], bodies[2]);
    assert.match(bodies[0], /This school has no such course, section or lecture/);
    assert.doesNotMatch(bodies[0], /Einführung|Python/);
    // Nor can a change reach it.
    const token = await csrfOf(owner, editor);
    const post = await owner.postForm(`/admin/${demo}/courses/${other}/curriculum/sections`, {
      csrf_token: token,
      title: 'Sneaky',
    });
    assert.equal(post.status, 404);
    assert.equal(
      (
        await world.other
          .token()
          .then((tk) =>
            t.request(`/api/v1/courses/${other}/curriculum`, { headers: { authorization: `Bearer ${tk}` } }),
          )
          .then((r) => r.text())
      ).includes('Sneaky'),
      false,
    );
  });

  it('a section of one course is not found under another course', async () => {
    const ts = world.demo.courseIds.typescript;
    const [section] = await curriculum(ts);
    const res = await owner.request(`${editor}/sections/${section.id}/rename`);
    assert.equal(res.status, 404);
    const lecture = section.lectures[0];
    assert.equal((await owner.request(`${editor}/lectures/${lecture.id}/edit`)).status, 404);
    const del = await submit(owner, editor, `${editor}/lectures/${lecture.id}/delete`, {});
    assert.equal(del.status, 404);
    assert.equal((await curriculum(ts))[0].lectures.length, 3, 'nothing was deleted');
  });

  it('nobody signed in is sent to sign in; a student gets the 403 page', async () => {
    const res = await t.request(editor);
    assert.equal(res.status, 302);
    assert.equal(locationOf(res), `/login?return_to=${encodeURIComponent(editor)}`);
    const student = await signedIn(t, 'student@example.com');
    assert.equal((await student.request(editor)).status, 403);
  });

  it('adds a section, answered by a redirect with a notice, the section last', async () => {
    const before = titles(await curriculum());
    const res = await submit(owner, editor, `${editor}/sections`, { title: 'Extra practice' });
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `${editor}?done=section-added`);
    assert.deepEqual(titles(await curriculum()), [...before, 'Extra practice']);
    const page = await (await owner.request(locationOf(res))).text();
    assert.match(page, /<div class="notice success" role="status"><p>The section was added\.<\/p><\/div>/);
  });

  it('an empty section title is the form again with the error next to the field, nothing added', async () => {
    const before = await curriculum();
    const res = await submit(owner, editor, `${editor}/sections`, { title: '   ' });
    assert.equal(res.status, 422);
    const page = await res.text();
    assert.match(
      page,
      /<input id="new-section-title" name="title" type="text" maxlength="200" required value=" {3}" aria-invalid="true" aria-describedby="new-section-title-error">\n<p class="field-error" id="new-section-title-error">Enter a title\.<\/p>/,
    );
    assert.deepEqual(await curriculum(), before);
  });

  it('a change without the CSRF token is refused with 403 and changes nothing', async () => {
    const before = await curriculum();
    const res = await owner.postForm(`${editor}/sections`, { title: 'Forged' });
    assert.equal(res.status, 403);
    assert.match(await res.text(), /This form has expired or did not come from this site/);
    const [first] = before;
    const move = await owner.postForm(`${editor}/sections/${first.id}/move`, { direction: 'down' });
    assert.equal(move.status, 403);
    const lecture = await owner.request(`${editor}/sections/${first.id}/lectures`, {
      method: 'POST',
      body: (() => {
        const f = new FormData();
        f.set('title', 'Forged');
        f.set('type', 'text');
        f.set('shown', 'text');
        return f;
      })(),
    });
    assert.equal(lecture.status, 403);
    assert.deepEqual(await curriculum(), before);
  });

  it('renames a section; an empty name is refused next to the field', async () => {
    const section = await addSection('Draft name');
    const form = `${editor}/sections/${section.id}/rename`;
    const page = await owner.request(form);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<h1>Rename section “Draft name”<\/h1>/);
    const bad = await submit(owner, form, form, { title: '' });
    assert.equal(bad.status, 422);
    assert.match(await bad.text(), /<p class="field-error" id="section-title-error">Enter a title/);
    const long = await submit(owner, form, form, { title: 'x'.repeat(201) });
    assert.equal(long.status, 422);
    assert.match(
      await long.text(),
      /id="section-title-error">Shorten the title to at most 200 characters\.<\/p>/,
    );
    const res = await submit(owner, form, form, { title: 'Final name' });
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `${editor}?done=section-renamed`);
    assert.equal((await curriculum()).find((s) => s.id === section.id)?.title, 'Final name');
  });

  it('moves sections up and down; past either end is refused gracefully (409) and changes nothing', async () => {
    await addSection('Move me');
    let sections = await curriculum();
    const last = sections.at(-1)!;
    const up = await submit(owner, editor, `${editor}/sections/${last.id}/move`, { direction: 'up' });
    assert.equal(up.status, 303);
    assert.equal(up.headers.get('location'), `${editor}?done=section-moved#section-${last.id}`);
    const after = await curriculum();
    assert.equal(after.at(-2)?.id, last.id);
    assert.deepEqual(
      after.map((s) => s.position),
      after.map((_, i) => i + 1),
    );
    const down = await submit(owner, editor, `${editor}/sections/${last.id}/move`, { direction: 'down' });
    assert.equal(down.status, 303);
    sections = await curriculum();
    assert.equal(sections.at(-1)?.id, last.id);

    const refused = await submit(owner, editor, `${editor}/sections/${last.id}/move`, { direction: 'down' });
    assert.equal(refused.status, 409);
    assert.match(
      await refused.text(),
      /<div class="notice error" role="alert"><p>“Move me” is already the last section\.<\/p>/,
    );
    const first = sections[0];
    const top = await submit(owner, editor, `${editor}/sections/${first.id}/move`, { direction: 'up' });
    assert.equal(top.status, 409);
    assert.match(await top.text(), /is already the first section\./);
    assert.deepEqual(await curriculum(), sections);
  });

  it('deletes a section after a confirmation page', async () => {
    const section = await addSection('Short-lived');
    const confirm = await owner.request(`${editor}/sections/${section.id}/delete`);
    assert.equal(confirm.status, 200);
    const page = await confirm.text();
    assert.match(page, /<h1>Delete section “Short-lived”\?<\/h1>/);
    assert.match(page, /<button class="danger" type="submit">Delete section<\/button>/);
    assert.ok(
      (await curriculum()).some((s) => s.id === section.id),
      'the page deletes nothing',
    );
    const res = await submit(owner, editor, `${editor}/sections/${section.id}/delete`, {});
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `${editor}?done=section-deleted`);
    assert.equal(
      (await curriculum()).some((s) => s.id === section.id),
      false,
    );
  });

  it('"Add lecture" asks for the type first, then shows that type’s form', async () => {
    const section = await addSection('Types');
    const chooser = await owner.request(`${editor}/sections/${section.id}/lectures/new`);
    assert.equal(chooser.status, 200);
    const page = await chooser.text();
    assert.match(page, /<legend>What kind of lecture\?<\/legend>/);
    for (const word of ['Video', 'Text', 'File', 'Quiz']) assert.match(page, new RegExp(`> ${word} <span`));
    const quiz = await (
      await owner.request(`${editor}/sections/${section.id}/lectures/new?type=quiz`)
    ).text();
    assert.match(quiz, /<h1>New quiz lecture in “Types”<\/h1>/);
    assert.match(quiz, /enctype="multipart\/form-data"/);
    assert.match(quiz, /<legend>Question 1<\/legend>/);
    assert.match(quiz, /<legend>Question 2<\/legend>/);
    const text = await (
      await owner.request(`${editor}/sections/${section.id}/lectures/new?type=text`)
    ).text();
    assert.match(text, /<textarea id="lecture-body" name="body"/);
    const video = await (
      await owner.request(`${editor}/sections/${section.id}/lectures/new?type=video`)
    ).text();
    assert.match(video, /<input id="lecture-video-url" name="video_url" type="url"/);
    assert.match(video, /<input id="lecture-upload" name="upload" type="file"/);
  });

  it('adds a lecture of each type, with its content', async () => {
    const section = await addSection('All kinds');
    const form = (type: string) => `${editor}/sections/${section.id}/lectures/new?type=${type}`;
    const action = `${editor}/sections/${section.id}/lectures`;

    const text = await postLecture(form('text'), action, {
      title: 'Reading',
      type: 'text',
      shown: 'text',
      minutes: '12',
      free_preview: 'on',
      body: '# Read this\n\nSome *text*.',
    });
    assert.equal(text.status, 303);
    assert.match(
      text.headers.get('location') ?? '',
      new RegExp(`^${editor}\\?done=lecture-added#lecture-lec_`),
    );

    const video = await postLecture(form('video'), action, {
      title: 'Watch',
      type: 'video',
      shown: 'video',
      minutes: '7.5',
      video_url: 'https://videos.example.com/watch.mp4',
      file_id: '',
      upload: new File([], ''),
    });
    assert.equal(video.status, 303);

    const uploaded = await postLecture(form('video'), action, {
      title: 'Watch the upload',
      type: 'video',
      shown: 'video',
      minutes: '',
      video_url: '',
      file_id: '',
      upload: new File([MP4], 'clip.mp4', { type: 'video/mp4' }),
    });
    assert.equal(uploaded.status, 303);

    const file = await postLecture(form('file'), action, {
      title: 'Handout',
      type: 'file',
      shown: 'file',
      file_id: '',
      upload: new File([PNG], 'handout.png', { type: 'image/png' }),
    });
    assert.equal(file.status, 303);

    const quiz = await postLecture(form('quiz'), action, {
      title: 'Check yourself',
      type: 'quiz',
      shown: 'quiz',
      minutes: '5',
      'q1-prompt': 'Which keyword declares a constant?',
      'q1-choice1': 'let',
      'q1-choice2': 'const',
      'q1-choice3': '',
      'q1-answer': '2',
      'q2-prompt': 'Is SQL declarative?',
      'q2-choice1': '',
      'q2-choice2': 'Yes',
      'q2-choice3': 'No',
      'q2-answer': '2',
      'q3-prompt': '',
    });
    assert.equal(quiz.status, 303);

    const lectures = (await curriculum()).find((s) => s.id === section.id)!.lectures;
    const files = await t.request('/api/v1/storage/files', { headers: { authorization: `Bearer ${token}` } });
    const stored = ((await files.json()) as { data: { id: string; filename: string }[] }).data;
    const fileId = (name: string) => stored.find((f) => f.filename === name)?.id;
    assert.deepEqual(
      lectures.map((l) => [
        l.position,
        l.title,
        l.type,
        l.duration_seconds,
        l.is_free_preview,
        l.body,
        l.video_url,
        l.file_id,
      ]),
      [
        [1, 'Reading', 'text', 720, true, '# Read this\n\nSome *text*.', null, null],
        [2, 'Watch', 'video', 450, false, null, 'https://videos.example.com/watch.mp4', null],
        [3, 'Watch the upload', 'video', 0, false, null, null, fileId('clip.mp4')],
        [4, 'Handout', 'file', 0, false, null, null, fileId('handout.png')],
        [
          5,
          'Check yourself',
          'quiz',
          300,
          false,
          '1. Which keyword declares a constant?\n   - [ ] let\n   - [x] const\n\n2. Is SQL declarative?\n   - [x] Yes\n   - [ ] No',
          null,
          null,
        ],
      ],
    );
    assert.ok(fileId('clip.mp4') && fileId('handout.png'));

    // The quiz reads back into the form, the right answers ticked.
    const quizLecture = lectures[4];
    const edit = await (await owner.request(`${editor}/lectures/${quizLecture.id}/edit`)).text();
    assert.match(
      edit,
      /<input id="q1-prompt" name="q1-prompt" type="text" value="Which keyword declares a constant\?">/,
    );
    assert.match(edit, /name="q1-answer" value="2" aria-label="Choice 2 is the right answer" checked>/);
    assert.match(edit, /name="q2-answer" value="1" aria-label="Choice 1 is the right answer" checked>/);
    assert.match(edit, /<legend>Question 4<\/legend>/, 'two empty questions to add more');
    // An uploaded file is offered by name on the file lecture's form.
    const handout = await (await owner.request(`${editor}/lectures/${lectures[3].id}/edit`)).text();
    assert.match(handout, /<option value="[^"]+" selected>handout\.png \(PNG image\)<\/option>/);
  });

  it('a refused lecture is the form again with each error next to its field; nothing is stored', async () => {
    const section = await addSection('Refusals');
    const form = `${editor}/sections/${section.id}/lectures/new?type=video`;
    const action = `${editor}/sections/${section.id}/lectures`;
    const res = await postLecture(form, action, {
      title: '',
      type: 'video',
      shown: 'video',
      minutes: 'ten',
      video_url: 'javascript:alert(1)',
      file_id: '',
      upload: new File([MP4], 'not-stored.mp4', { type: 'video/mp4' }),
    });
    assert.equal(res.status, 422);
    const page = await res.text();
    assert.match(page, /The lecture was not saved: 4 fields need a change \(marked below\)\./);
    assert.match(
      page,
      /aria-invalid="true" aria-describedby="lecture-title-error">\n<p class="field-error" id="lecture-title-error">Enter a title\.<\/p>/,
    );
    assert.match(
      page,
      /<p class="field-error" id="lecture-minutes-error">Enter the duration in minutes as a number, like 12\.<\/p>/,
    );
    assert.match(
      page,
      /<p class="field-error" id="lecture-video-url-error">Enter a full web address that starts with https:\/\/ \(or http:\/\/\)\.<\/p>/,
    );
    assert.match(
      page,
      /<p class="field-error" id="lecture-upload-error">Choose the file again: it was not uploaded\.<\/p>/,
    );
    assert.match(page, /value="ten"/, 'what was typed stays');
    assert.equal((await curriculum()).find((s) => s.id === section.id)?.lectures.length, 0);
    const files = await t.request('/api/v1/storage/files', { headers: { authorization: `Bearer ${token}` } });
    assert.doesNotMatch(await files.text(), /not-stored\.mp4/);

    // A file of a type the store refuses: the reason in words, by the upload field.
    const refused = await postLecture(`${editor}/sections/${section.id}/lectures/new?type=file`, action, {
      title: 'Page',
      type: 'file',
      shown: 'file',
      file_id: '',
      upload: new File(['<script>alert(1)</script>'], 'page.html', { type: 'text/html' }),
    });
    assert.equal(refused.status, 422);
    assert.match(
      await refused.text(),
      /<p class="field-error" id="lecture-upload-error">This kind of file cannot be stored\. Accepted: images/,
    );
    // A file of another school (or none) is refused by the operation's own check.
    const foreign = await postLecture(`${editor}/sections/${section.id}/lectures/new?type=file`, action, {
      title: 'Foreign',
      type: 'file',
      shown: 'file',
      file_id: 'fil_01jf3k6m2v8w9x0y1z2a3b4c5d',
    });
    assert.equal(foreign.status, 422);
    assert.match(
      await foreign.text(),
      /<p class="field-error" id="lecture-file-error">Choose one of the school’s files\.<\/p>/,
    );
    assert.equal((await curriculum()).find((s) => s.id === section.id)?.lectures.length, 0);
  });

  it('a quiz question needs two choices and one right answer, said by the question', async () => {
    const section = await addSection('Quiz rules');
    const res = await postLecture(
      `${editor}/sections/${section.id}/lectures/new?type=quiz`,
      `${editor}/sections/${section.id}/lectures`,
      {
        title: 'Quiz',
        type: 'quiz',
        shown: 'quiz',
        'q1-prompt': 'Only one choice?',
        'q1-choice1': 'Yes',
        'q1-answer': '1',
        'q2-prompt': 'No right answer?',
        'q2-choice1': 'A',
        'q2-choice2': 'B',
        'q3-choice1': 'A choice without a question',
        'q3-choice2': 'B',
        'q3-answer': '1',
      },
    );
    assert.equal(res.status, 422);
    const page = await res.text();
    assert.match(
      page,
      /<p class="field-error" id="q1-answer-error">Question 1 needs at least two choices\.<\/p>/,
    );
    assert.match(
      page,
      /<p class="field-error" id="q2-answer-error">Question 2 needs one right answer among its choices\.<\/p>/,
    );
    assert.match(page, /<p class="field-error" id="q3-prompt-error">Question 3 needs a question\.<\/p>/);
    assert.equal((await curriculum()).find((s) => s.id === section.id)?.lectures.length, 0);
  });

  it('a quiz longer than a lecture body may be is refused above its questions', async () => {
    const section = await addSection('Long quiz');
    const res = await postLecture(
      `${editor}/sections/${section.id}/lectures/new?type=quiz`,
      `${editor}/sections/${section.id}/lectures`,
      {
        title: 'Long',
        type: 'quiz',
        shown: 'quiz',
        'q1-prompt': 'x'.repeat(200_001),
        'q1-choice1': 'A',
        'q1-choice2': 'B',
        'q1-answer': '1',
      },
    );
    assert.equal(res.status, 422);
    assert.match(
      await res.text(),
      /<h2 id="questions">Questions<\/h2>\n<p class="field-error" id="quiz-error">The quiz is too long: shorten or remove some questions\.<\/p>/,
    );
    assert.equal((await curriculum()).find((s) => s.id === section.id)?.lectures.length, 0);
  });

  it('edits a lecture; a new type saves and opens the form with that type’s fields', async () => {
    const section = await addSection('Editing');
    const created = await postLecture(
      `${editor}/sections/${section.id}/lectures/new?type=text`,
      `${editor}/sections/${section.id}/lectures`,
      {
        title: 'Notes',
        type: 'text',
        shown: 'text',
        body: 'First draft',
      },
    );
    assert.equal(created.status, 303);
    const lecture = (await curriculum()).find((s) => s.id === section.id)!.lectures[0];
    const form = `${editor}/lectures/${lecture.id}/edit`;
    const saved = await postLecture(form, form, {
      title: 'Notes, revised',
      type: 'text',
      minutes: '3',
      free_preview: 'on',
      body: 'Second draft',
    });
    assert.equal(saved.status, 303);
    assert.equal(saved.headers.get('location'), `${editor}?done=lecture-saved#lecture-${lecture.id}`);
    let now = (await curriculum()).find((s) => s.id === section.id)!.lectures[0];
    assert.deepEqual(
      [now.title, now.duration_seconds, now.is_free_preview, now.body],
      ['Notes, revised', 180, true, 'Second draft'],
    );

    const retyped = await postLecture(form, form, {
      title: 'Notes, revised',
      type: 'quiz',
      minutes: '3',
      body: 'Second draft',
    });
    assert.equal(retyped.status, 303);
    assert.equal(locationOf(retyped), `${form}?retyped=1`);
    const page = await (await owner.request(locationOf(retyped))).text();
    assert.match(page, /Add its content below and save again\./);
    assert.match(page, /<legend>Question 1<\/legend>/);
    now = (await curriculum()).find((s) => s.id === section.id)!.lectures[0];
    assert.equal(now.type, 'quiz');
    assert.equal(now.is_free_preview, false, 'an unticked box is saved as unticked');
  });

  it('moves lectures within their section; past either end is refused gracefully (409)', async () => {
    const section = await addSection('Ordering');
    for (const title of ['One', 'Two', 'Three']) {
      const res = await postLecture(
        `${editor}/sections/${section.id}/lectures/new?type=text`,
        `${editor}/sections/${section.id}/lectures`,
        {
          title,
          type: 'text',
          shown: 'text',
        },
      );
      assert.equal(res.status, 303);
    }
    const order = async () =>
      (await curriculum()).find((s) => s.id === section.id)!.lectures.map((l) => l.title);
    const ids = (await curriculum()).find((s) => s.id === section.id)!.lectures.map((l) => l.id);
    const up = await submit(owner, editor, `${editor}/lectures/${ids[2]}/move`, { direction: 'up' });
    assert.equal(up.status, 303);
    assert.equal(up.headers.get('location'), `${editor}?done=lecture-moved#lecture-${ids[2]}`);
    assert.deepEqual(await order(), ['One', 'Three', 'Two']);
    const down = await submit(owner, editor, `${editor}/lectures/${ids[0]}/move`, { direction: 'down' });
    assert.equal(down.status, 303);
    assert.deepEqual(await order(), ['Three', 'One', 'Two']);
    const top = await submit(owner, editor, `${editor}/lectures/${ids[2]}/move`, { direction: 'up' });
    assert.equal(top.status, 409);
    assert.match(await top.text(), /“Three” is already the first lecture of “Ordering”\./);
    const bottom = await submit(owner, editor, `${editor}/lectures/${ids[1]}/move`, { direction: 'down' });
    assert.equal(bottom.status, 409);
    assert.deepEqual(await order(), ['Three', 'One', 'Two']);
  });

  it('deletes a lecture after a confirmation page', async () => {
    const section = await addSection('Deleting');
    await postLecture(
      `${editor}/sections/${section.id}/lectures/new?type=text`,
      `${editor}/sections/${section.id}/lectures`,
      {
        title: 'Doomed',
        type: 'text',
        shown: 'text',
      },
    );
    const lecture = (await curriculum()).find((s) => s.id === section.id)!.lectures[0];
    const confirm = await owner.request(`${editor}/lectures/${lecture.id}/delete`);
    assert.equal(confirm.status, 200);
    const page = await confirm.text();
    assert.match(page, /<h1>Delete lecture “Doomed”\?<\/h1>/);
    assert.match(page, /<button class="danger" type="submit">Delete lecture<\/button>/);
    const res = await submit(owner, editor, `${editor}/lectures/${lecture.id}/delete`, {});
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `${editor}?done=lecture-deleted`);
    assert.equal((await curriculum()).find((s) => s.id === section.id)!.lectures.length, 0);
  });

  /** Someone else's change through the admin API (a PATCH), as another person saving in between. */
  async function patchAsSomeoneElse(path: string, body: Record<string, unknown>): Promise<void> {
    const res = await t.request(path, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, await res.clone().text());
  }
  /** The current ETag of an API resource. */
  async function etagOf(path: string): Promise<string> {
    const res = await t.request(path, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    const etag = res.headers.get('etag');
    assert.ok(etag);
    return etag;
  }
  /** The stored files' names, through the admin API. */
  async function storedNames(): Promise<string[]> {
    const res = await t.request('/api/v1/storage/files?limit=100', {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200);
    return ((await res.json()) as { data: { filename: string }[] }).data.map((f) => f.filename);
  }
  /** A page's form fields (hidden ones included), by the form's action. */
  async function fieldsOf(page: string, action: string): Promise<URLSearchParams> {
    const res = await owner.request(page);
    assert.equal(res.status, 200);
    return formFields(await res.text(), action);
  }
  /** POSTs a multipart form with the given fields as they are (CSRF token, hidden fields included). */
  function postMultipart(action: string, fields: URLSearchParams, more: Record<string, string | File>) {
    const form = new FormData();
    for (const [k, v] of fields) form.set(k, v);
    for (const [k, v] of Object.entries(more)) form.set(k, v);
    return owner.request(action, { method: 'POST', body: form });
  }
  const CHANGED =
    /Someone changed this (lecture|section) since you opened it\. Their version is shown below; your changes are still in the form\. Save again to replace their version with yours\./;

  it('a lecture saved by someone else since the form opened is not overwritten: their version, our values, then a deliberate second save', async () => {
    const section = await addSection('Two editors');
    const created = await postLecture(
      `${editor}/sections/${section.id}/lectures/new?type=text`,
      `${editor}/sections/${section.id}/lectures`,
      { title: 'Shared notes', type: 'text', shown: 'text', body: 'The first text' },
    );
    assert.equal(created.status, 303);
    const lecture = (await curriculum()).find((s) => s.id === section.id)!.lectures[0];
    const form = `${editor}/lectures/${lecture.id}/edit`;
    const opened = await fieldsOf(form, form);
    assert.equal(
      opened.get('_etag'),
      await etagOf(`/api/v1/lectures/${lecture.id}`),
      'the form carries the ETag',
    );

    await patchAsSomeoneElse(`/api/v1/lectures/${lecture.id}`, { title: 'Their notes', body: 'Their text' });
    const mine = { title: 'My notes', type: 'text', minutes: '4', body: 'My own text' };
    const lost = await postMultipart(form, opened, mine);
    assert.equal(lost.status, 409);
    assertPageHeaders(lost);
    const page = await lost.text();
    assert.match(page, CHANGED);
    const theirs = /<section aria-labelledby="theirs">([\s\S]*?)<\/section>/.exec(page)?.[1] ?? '';
    assert.match(theirs, /<dt>Title<\/dt><dd>Their notes<\/dd>/);
    assert.match(theirs, /<dt>Type<\/dt><dd>Text<\/dd>/);
    assert.match(theirs, /<div class="prose">Their text<\/div>/);
    assert.match(
      page,
      /id="lecture-title" name="title" type="text" maxlength="200" required value="My notes"/,
    );
    assert.match(page, /<textarea id="lecture-body" name="body"[^>]*>My own text<\/textarea>/);
    assert.match(page, /id="lecture-minutes" name="minutes"[^>]*value="4"/);
    const now = await etagOf(`/api/v1/lectures/${lecture.id}`);
    const again = formFields(page, form);
    assert.equal(again.get('_etag'), now, 'the form now carries their version’s ETag');
    let stored = (await curriculum()).find((s) => s.id === section.id)!.lectures[0];
    assert.deepEqual([stored.title, stored.body], ['Their notes', 'Their text'], 'theirs was kept');

    // A second Save replaces theirs on purpose.
    const saved = await postMultipart(form, again, mine);
    assert.equal(saved.status, 303);
    stored = (await curriculum()).find((s) => s.id === section.id)!.lectures[0];
    assert.deepEqual([stored.title, stored.body, stored.duration_seconds], ['My notes', 'My own text', 240]);
  });

  it('their version of a file or video lecture is said in words; a file chosen for the lost save is not stored', async () => {
    const section = await addSection('Two editors, files');
    const created = await postLecture(
      `${editor}/sections/${section.id}/lectures/new?type=video`,
      `${editor}/sections/${section.id}/lectures`,
      { title: 'Clip', type: 'video', shown: 'video', video_url: 'https://videos.example.com/a.mp4' },
    );
    assert.equal(created.status, 303);
    const lecture = (await curriculum()).find((s) => s.id === section.id)!.lectures[0];
    const form = `${editor}/lectures/${lecture.id}/edit`;
    const opened = await fieldsOf(form, form);
    await patchAsSomeoneElse(`/api/v1/lectures/${lecture.id}`, {
      video_url: 'https://videos.example.com/b.mp4',
    });
    const lost = await postMultipart(form, opened, {
      title: 'Clip',
      type: 'video',
      video_url: '',
      upload: new File([MP4], 'lost-race.mp4', { type: 'video/mp4' }),
    });
    assert.equal(lost.status, 409);
    const page = await lost.text();
    assert.match(page, CHANGED);
    assert.match(page, /<dd>Video URL: https:\/\/videos\.example\.com\/b\.mp4<\/dd>/);
    assert.match(page, /id="lecture-upload-error">Choose the file again: it was not uploaded\.<\/p>/);
    assert.ok(!(await storedNames()).includes('lost-race.mp4'), 'no orphan file');
    const stored = (await curriculum()).find((s) => s.id === section.id)!.lectures[0];
    assert.equal(stored.video_url, 'https://videos.example.com/b.mp4');
  });

  it('someone saving while the file uploads: the save is refused (409), and the uploaded file is deleted again', async () => {
    const section = await addSection('Upload race');
    const created = await postLecture(
      `${editor}/sections/${section.id}/lectures/new?type=file`,
      `${editor}/sections/${section.id}/lectures`,
      { title: 'Slides', type: 'file', shown: 'file', file_id: '' },
    );
    assert.equal(created.status, 303);
    const lecture = (await curriculum()).find((s) => s.id === section.id)!.lectures[0];
    const form = `${editor}/lectures/${lecture.id}/edit`;
    const opened = await fieldsOf(form, form);
    // The other person's save lands exactly while this file is stored (a test-only trigger), so
    // the form's ETag still matched before the upload and the save's If-Match is what refuses it.
    const db = t.runtime.db;
    const change = sql.raw(`update lectures set title = 'Slides, theirs' where id = '${lecture.id}'`);
    if (ENGINE === 'postgres') {
      await sql`create function race_upload() returns trigger language plpgsql as $$ begin ${change}; return new; end $$`.execute(
        db,
      );
      await sql`create trigger race_upload after insert on stored_files for each row when (new.filename = 'race.png') execute function race_upload()`.execute(
        db,
      );
    } else {
      await sql`create trigger race_upload after insert on stored_files when new.filename = 'race.png' begin ${change}; end`.execute(
        db,
      );
    }
    try {
      const lost = await postMultipart(form, opened, {
        title: 'Slides, mine',
        type: 'file',
        file_id: '',
        upload: new File([PNG], 'race.png', { type: 'image/png' }),
      });
      assert.equal(lost.status, 409);
      const page = await lost.text();
      assert.match(page, CHANGED);
      assert.match(page, /<dt>Title<\/dt><dd>Slides, theirs<\/dd>/);
      assert.match(page, /value="Slides, mine"/);
      assert.match(page, /id="lecture-upload-error">Choose the file again: it was not uploaded\.<\/p>/);
      assert.equal(formFields(page, form).get('_etag'), await etagOf(`/api/v1/lectures/${lecture.id}`));
    } finally {
      await sql`drop trigger race_upload${ENGINE === 'postgres' ? sql` on stored_files` : sql``}`.execute(db);
      if (ENGINE === 'postgres') await sql`drop function race_upload()`.execute(db);
    }
    assert.ok(!(await storedNames()).includes('race.png'), 'the refused save left no file');
    const stored = (await curriculum()).find((s) => s.id === section.id)!.lectures[0];
    assert.deepEqual([stored.title, stored.file_id], ['Slides, theirs', null]);
  });

  it('a section renamed by someone else since the form opened is not overwritten; a second save replaces it', async () => {
    const section = await addSection('Rename race');
    const form = `${editor}/sections/${section.id}/rename`;
    const opened = await fieldsOf(form, form);
    assert.equal(opened.get('_etag'), await etagOf(`/api/v1/sections/${section.id}`));
    await patchAsSomeoneElse(`/api/v1/sections/${section.id}`, { title: 'Their name' });
    opened.set('title', 'My name');
    const lost = await owner.postForm(form, opened);
    assert.equal(lost.status, 409);
    const page = await lost.text();
    assert.match(page, CHANGED);
    assert.match(page, /<h2 id="theirs">Their version<\/h2><dl><dt>Title<\/dt><dd>Their name<\/dd><\/dl>/);
    assert.match(
      page,
      /id="section-title" name="title" type="text" maxlength="200" required value="My name"/,
    );
    assert.equal((await curriculum()).find((s) => s.id === section.id)?.title, 'Their name');
    const again = formFields(page, form);
    assert.equal(again.get('_etag'), await etagOf(`/api/v1/sections/${section.id}`));
    const saved = await owner.postForm(form, again);
    assert.equal(saved.status, 303);
    assert.equal((await curriculum()).find((s) => s.id === section.id)?.title, 'My name');
  });

  it('a section form sent twice (a double click) adds one section; each page has its own key', async () => {
    const fields = await fieldsOf(editor, `${editor}/sections`);
    const key = fields.get('_key');
    assert.match(key ?? '', /^[0-9a-f-]{36}$/);
    fields.set('title', 'Clicked twice');
    const [one, two] = await Promise.all([
      owner.postForm(`${editor}/sections`, fields),
      owner.postForm(`${editor}/sections`, fields),
    ]);
    assert.deepEqual([one.status, two.status], [303, 303]);
    assert.equal(titles(await curriculum()).filter((t) => t === 'Clicked twice').length, 1);
    const next = await fieldsOf(editor, `${editor}/sections`);
    assert.notEqual(next.get('_key'), key);
  });

  it('a new lecture form sent twice (a double click) adds one lecture and stores its file once', async () => {
    const section = await addSection('Double click');
    const page = `${editor}/sections/${section.id}/lectures/new?type=file`;
    const action = `${editor}/sections/${section.id}/lectures`;
    const fields = await fieldsOf(page, action);
    assert.match(fields.get('_key') ?? '', /^[0-9a-f-]{36}$/);
    const send = () =>
      postMultipart(action, fields, {
        title: 'Handout',
        type: 'file',
        file_id: '',
        upload: new File([PNG], 'twice.png', { type: 'image/png' }),
      });
    const one = await send();
    const two = await send();
    assert.deepEqual([one.status, two.status], [303, 303]);
    assert.equal(locationOf(two), locationOf(one), 'the second answer is the first one’s');
    const lectures = (await curriculum()).find((s) => s.id === section.id)!.lectures;
    assert.deepEqual(
      lectures.map((l) => l.title),
      ['Handout'],
    );
    assert.equal((await storedNames()).filter((n) => n === 'twice.png').length, 1);
    const text = await fieldsOf(`${editor}/sections/${section.id}/lectures/new?type=text`, action);
    const [a, b] = await Promise.all(
      [0, 1].map(() => postMultipart(action, text, { title: 'Quick', type: 'text', body: 'x' })),
    );
    assert.deepEqual([a.status, b.status], [303, 303]);
    assert.equal(
      (await curriculum()).find((s) => s.id === section.id)!.lectures.filter((l) => l.title === 'Quick')
        .length,
      1,
    );
    // The same form sent again with other values (back, edit, send) adds nothing more: it says so.
    const reused = await postMultipart(action, text, { title: 'Quick, changed', type: 'text', body: 'y' });
    assert.equal(reused.status, 422);
    assert.match(
      await reused.text(),
      /The lecture was not saved: this form was already used to add a lecture\. Open a new form to add another\./,
    );
    const titlesNow = (await curriculum()).find((s) => s.id === section.id)!.lectures.map((l) => l.title);
    assert.deepEqual(titlesNow, ['Handout', 'Quick']);
  });

  it('a section title far over its limit is not echoed back whole: the field holds at most its maximum', async () => {
    const long = `${'a'.repeat(200)}${'b'.repeat(5000)}`;
    const res = await submit(owner, editor, `${editor}/sections`, { title: long });
    assert.equal(res.status, 422);
    const page = await res.text();
    assert.match(
      page,
      new RegExp(
        `id="new-section-title" name="title" type="text" maxlength="200" required value="${'a'.repeat(200)}"`,
      ),
    );
    assert.doesNotMatch(page, /b{10}/);
    assert.match(page, /Shorten the title to at most 200 characters\./);
    const section = (await curriculum())[0];
    const form = `${editor}/sections/${section.id}/rename`;
    const rename = await submit(owner, form, form, { title: long });
    assert.equal(rename.status, 422);
    const renamed = await rename.text();
    assert.match(
      renamed,
      new RegExp(
        `id="section-title" name="title" type="text" maxlength="200" required value="${'a'.repeat(200)}"`,
      ),
    );
    assert.doesNotMatch(renamed, /b{10}/);
  });

  it('only the lecture forms take uploads: a section form over the body limit is 413, with a way back to the curriculum', async () => {
    const limit = t.config.bodyLimitBytes;
    const body = new URLSearchParams({ csrf_token: await csrfOf(owner, editor), title: 'x'.repeat(limit) });
    const res = await owner.request(`${editor}/sections`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: body.toString(),
    });
    assert.equal(res.status, 413);
    const page = await res.text();
    assert.match(page, /larger than this server accepts \(1 MB\)/);
    assert.match(page, new RegExp(`<a href="${editor}">Back to the curriculum</a>`));
    assert.doesNotMatch(page, /Back to the files/);

    // A lecture form is an upload form: over the body limit but under the upload limit it is read.
    const section = (await curriculum())[0];
    const big = await postLecture(
      `${editor}/sections/${section.id}/lectures/new?type=file`,
      `${editor}/sections/${section.id}/lectures`,
      {
        title: 'Big handout',
        type: 'file',
        shown: 'file',
        file_id: '',
        upload: new File([PNG, new Uint8Array(limit)], 'big.png', { type: 'image/png' }),
      },
    );
    assert.equal(big.status, 303);

    // Another console page: back to the console home.
    const other = await owner.request(`/admin/${demo}/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: `x=${'y'.repeat(limit)}`,
    });
    assert.equal(other.status, 413);
    assert.match(await other.text(), new RegExp(`<a href="/admin/${demo}">Back to the admin area</a>`));
  });
});
