import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import {
  countLecturers,
  createLecturer,
  deleteLecturer,
  findLecturerByUser,
  getLecturer,
  listLecturers,
  updateLecturer,
} from '../../src/domain/catalog/lecturers.ts';
import { createDomainFixture, type DomainFixture } from '../support/world-domain.ts';
import { problemOf } from './problem-of.ts';

describe('lecturers repository contract', () => {
  let f: DomainFixture;
  before(async () => {
    f = await createDomainFixture();
  });
  after(() => f.close());

  it('creates a profile linked to a member, one per member and school', async () => {
    const l = await createLecturer(f.db, f.schoolA, {
      name: 'Alice A.',
      userId: f.alice,
      bio: 'Teaches things.',
    });
    assert.match(l.id, /^lct_/);
    assert.equal(l.userId, f.alice);
    assert.equal(l.bio, 'Teaches things.');
    assert.deepEqual(l.courses, []);
    assert.equal((await findLecturerByUser(f.db, f.schoolA, f.alice))?.id, l.id);
    assert.equal(
      (await problemOf(createLecturer(f.db, f.schoolA, { name: 'Again', userId: f.alice }))).code,
      'lecturer_exists',
    );
    // Carol is not a member of school A.
    assert.equal(
      (await problemOf(createLecturer(f.db, f.schoolA, { name: 'C', userId: f.carol }))).status,
      422,
    );
  });

  it('shows its courses, updates, lists, deletes; isolated by school', async () => {
    const l = await createLecturer(f.db, f.schoolA, { name: 'Guest' });
    await createCourse(f.db, f.schoolA, { slug: 'g', title: 'Guest course', lecturerIds: [l.id] });
    assert.deepEqual(
      (await getLecturer(f.db, f.schoolA, l.id)).courses.map((c) => c.slug),
      ['g'],
    );
    const u = await updateLecturer(f.db, f.schoolA, l.id, {
      headline: 'Visiting',
      avatarUrl: 'https://x.example/a.png',
    });
    assert.equal(u.headline, 'Visiting');
    assert.equal(u.avatarUrl, 'https://x.example/a.png');
    assert.equal(
      (await problemOf(updateLecturer(f.db, f.schoolA, l.id, { avatarUrl: 'javascript:alert(1)' }))).status,
      422,
    );
    assert.equal(await countLecturers(f.db, f.schoolA), 2);
    assert.equal((await listLecturers(f.db, f.schoolA, { limit: 1 })).next_cursor !== null, true);
    assert.equal((await listLecturers(f.db, f.schoolB)).data.length, 0);
    assert.equal((await problemOf(getLecturer(f.db, f.schoolB, l.id))).code, 'not_found');
    assert.equal((await problemOf(deleteLecturer(f.db, f.schoolB, l.id))).status, 404);
    await deleteLecturer(f.db, f.schoolA, l.id);
    assert.equal((await problemOf(getLecturer(f.db, f.schoolA, l.id))).status, 404);
  });
});
