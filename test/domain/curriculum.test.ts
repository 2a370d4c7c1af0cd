import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import {
  createLecture,
  createSection,
  deleteSection,
  getCurriculum,
  getLecture,
  moveLecture,
  reorderLectures,
  reorderSections,
  updateLecture,
  updateSection,
} from '../../src/domain/catalog/curriculum.ts';
import { createDomainFixture, type DomainFixture } from '../support/world-domain.ts';
import { problemOf } from './problem-of.ts';

describe('curriculum repository contract', () => {
  let f: DomainFixture;
  let courseId: string;
  before(async () => {
    f = await createDomainFixture();
    courseId = (await createCourse(f.db, f.schoolA, { slug: 'c', title: 'C' })).id;
  });
  after(() => f.close());

  it('appends sections and inserts at a position, keeping positions 1..n', async () => {
    const a = await createSection(f.db, f.schoolA, courseId, { title: 'A' });
    const c = await createSection(f.db, f.schoolA, courseId, { title: 'C' });
    const b = await createSection(f.db, f.schoolA, courseId, { title: 'B', position: 2 });
    assert.equal(a.position, 1);
    assert.equal(b.position, 2);
    const tree = await getCurriculum(f.db, f.schoolA, courseId);
    assert.deepEqual(
      tree.map((s) => [s.title, s.position]),
      [
        ['A', 1],
        ['B', 2],
        ['C', 3],
      ],
    );
    assert.equal(c.courseId, courseId);
  });

  it('adds lectures of every type with duration and free preview', async () => {
    const [a] = await getCurriculum(f.db, f.schoolA, courseId);
    const video = await createLecture(f.db, f.schoolA, a.id, {
      title: 'Welcome',
      type: 'video',
      durationSeconds: 300,
      isFreePreview: true,
      videoUrl: 'https://video.example.com/welcome.mp4',
    });
    const text = await createLecture(f.db, f.schoolA, a.id, {
      title: 'Notes',
      type: 'text',
      body: '# Notes',
    });
    const quiz = await createLecture(f.db, f.schoolA, a.id, { title: 'Quiz', type: 'quiz' });
    const file = await createLecture(f.db, f.schoolA, a.id, { title: 'Slides', type: 'file', position: 1 });
    assert.equal(video.isFreePreview, true);
    assert.equal(video.durationSeconds, 300);
    assert.equal(text.isFreePreview, false);
    assert.equal(text.body, '# Notes');
    const tree = await getCurriculum(f.db, f.schoolA, courseId);
    assert.deepEqual(
      tree[0].lectures.map((l) => [l.title, l.type, l.position]),
      [
        ['Slides', 'file', 1],
        ['Welcome', 'video', 2],
        ['Notes', 'text', 3],
        ['Quiz', 'quiz', 4],
      ],
    );
    assert.equal(quiz.sectionId, a.id);
    assert.equal(file.courseId, courseId);
    const p = await problemOf(createLecture(f.db, f.schoolA, a.id, { title: 'x', type: 'audio' as never }));
    assert.deepEqual(p.errors, [{ field: 'type', message: 'must be one of video, text, quiz, file' }]);
  });

  it('reorders sections and lectures; anything but a permutation is 422', async () => {
    const tree = await getCurriculum(f.db, f.schoolA, courseId);
    const ids = tree.map((s) => s.id);
    const reordered = await reorderSections(f.db, f.schoolA, courseId, [ids[2], ids[0], ids[1]]);
    assert.deepEqual(
      reordered.map((s) => s.title),
      ['C', 'A', 'B'],
    );
    assert.equal((await problemOf(reorderSections(f.db, f.schoolA, courseId, [ids[0], ids[1]]))).status, 422);
    assert.equal(
      (await problemOf(reorderSections(f.db, f.schoolA, courseId, [ids[0], ids[0], ids[1]]))).status,
      422,
    );
    const section = tree[0];
    const lectureIds = section.lectures.map((l) => l.id).reverse();
    const after = await reorderLectures(f.db, f.schoolA, section.id, lectureIds);
    assert.deepEqual(
      after.lectures.map((l) => [l.id, l.position]),
      lectureIds.map((id, i) => [id, i + 1]),
    );
    assert.equal((await problemOf(reorderLectures(f.db, f.schoolA, section.id, ['lec_x']))).status, 422);
  });

  it('moves a lecture between sections of the course, renumbering both', async () => {
    const tree = await getCurriculum(f.db, f.schoolA, courseId);
    const first = tree.find((s) => s.lectures.length > 1)!;
    const second = tree.find((s) => s.lectures.length === 0)!;
    const moving = first.lectures[0];
    const moved = await moveLecture(f.db, f.schoolA, moving.id, { sectionId: second.id, position: 1 });
    assert.equal(moved.sectionId, second.id);
    assert.equal(moved.position, 1);
    const now = await getCurriculum(f.db, f.schoolA, courseId);
    const a = now.find((s) => s.id === first.id)!;
    const b = now.find((s) => s.id === second.id)!;
    assert.deepEqual(
      a.lectures.map((l) => l.position),
      a.lectures.map((_, i) => i + 1),
    );
    assert.deepEqual(
      b.lectures.map((l) => [l.id, l.position]),
      [[moving.id, 1]],
    );
    const back = await moveLecture(f.db, f.schoolA, moving.id, { sectionId: first.id });
    assert.equal(back.position, first.lectures.length);
    const otherCourse = await createCourse(f.db, f.schoolA, { slug: 'other-c', title: 'O' });
    const foreign = await createSection(f.db, f.schoolA, otherCourse.id, { title: 'X' });
    assert.equal(
      (await problemOf(moveLecture(f.db, f.schoolA, moving.id, { sectionId: foreign.id }))).status,
      422,
    );
    assert.equal(
      (await problemOf(moveLecture(f.db, f.schoolB, moving.id, { sectionId: first.id }))).status,
      404,
    );
  });

  it('updates and deletes, renumbering what is left', async () => {
    const tree = await getCurriculum(f.db, f.schoolA, courseId);
    const renamed = await updateSection(f.db, f.schoolA, tree[0].id, { title: 'Intro' });
    assert.equal(renamed.title, 'Intro');
    const lecture = tree.find((s) => s.lectures.length > 0)!.lectures[0];
    const changed = await updateLecture(f.db, f.schoolA, lecture.id, {
      isFreePreview: true,
      durationSeconds: 61,
    });
    assert.equal(changed.isFreePreview, true);
    assert.equal(changed.durationSeconds, 61);
    assert.equal(changed.title, lecture.title);
    await deleteSection(f.db, f.schoolA, tree[0].id);
    const left = await getCurriculum(f.db, f.schoolA, courseId);
    assert.deepEqual(
      left.map((s) => s.position),
      [1, 2],
    );
  });

  it('isolates schools', async () => {
    const tree = await getCurriculum(f.db, f.schoolA, courseId);
    const lecture = tree.flatMap((s) => s.lectures)[0];
    assert.equal((await problemOf(getCurriculum(f.db, f.schoolB, courseId))).code, 'not_found');
    assert.equal((await problemOf(createSection(f.db, f.schoolB, courseId, { title: 'x' }))).status, 404);
    assert.equal((await problemOf(getLecture(f.db, f.schoolB, lecture.id))).status, 404);
    assert.equal(
      (await problemOf(createLecture(f.db, f.schoolB, tree[0].id, { title: 'x', type: 'text' }))).status,
      404,
    );
    assert.equal((await problemOf(updateLecture(f.db, f.schoolB, lecture.id, { title: 'x' }))).status, 404);
    assert.equal((await problemOf(reorderSections(f.db, f.schoolB, courseId, []))).status, 404);
  });
});
