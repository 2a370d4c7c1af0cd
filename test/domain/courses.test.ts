import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  countCourses,
  createCourse,
  deleteCourse,
  findCourse,
  getCourse,
  listCourses,
  searchCatalogue,
  updateCourse,
} from '../../src/domain/catalog/courses.ts';
import { createLecturer } from '../../src/domain/catalog/lecturers.ts';
import { createDomainFixture, type DomainFixture } from '../support/world-domain.ts';
import { problemOf } from './problem-of.ts';

describe('courses repository contract', () => {
  let f: DomainFixture;
  before(async () => {
    f = await createDomainFixture();
  });
  after(() => f.close());

  it('creates a draft course priced in the school currency by default', async () => {
    const course = await createCourse(f.db, f.schoolA, { slug: 'intro', title: '  Intro  ' });
    assert.match(course.id, /^crs_[0-9a-z]{26}$/);
    assert.equal(course.schoolId, f.schoolA);
    assert.equal(course.title, 'Intro');
    assert.equal(course.status, 'draft');
    assert.equal(course.priceAmount, 0);
    assert.equal(course.currency, 'USD');
    assert.equal(course.publishedAt, null);
    assert.deepEqual(course.lecturers, []);
    assert.match(course.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.deepEqual(await getCourse(f.db, f.schoolA, course.id), course);
  });

  it('keeps slugs unique per school: 409 slug_taken, but free in another school', async () => {
    await createCourse(f.db, f.schoolA, { slug: 'dup', title: 'One' });
    assert.deepEqual(await problemOf(createCourse(f.db, f.schoolA, { slug: 'dup', title: 'Two' })), {
      status: 409,
      code: 'slug_taken',
      errors: undefined,
    });
    const other = await createCourse(f.db, f.schoolB, { slug: 'dup', title: 'Elsewhere' });
    assert.equal(other.currency, 'EUR');
    const mine = await createCourse(f.db, f.schoolA, { slug: 'dup-2', title: 'Three' });
    assert.equal(
      (await problemOf(updateCourse(f.db, f.schoolA, mine.id, { slug: 'dup' }))).code,
      'slug_taken',
    );
  });

  it('without a slug, makes one from the title, unique in the school even when created at once', async () => {
    const one = await createCourse(f.db, f.schoolA, { title: 'Ölmalerei für Anfänger' });
    assert.equal(one.slug, 'olmalerei-fur-anfanger');
    const raced = await Promise.all(
      [1, 2, 3].map(() => createCourse(f.db, f.schoolA, { title: 'Ölmalerei für Anfänger' })),
    );
    assert.deepEqual(raced.map((c) => c.slug).sort(), [
      'olmalerei-fur-anfanger-2',
      'olmalerei-fur-anfanger-3',
      'olmalerei-fur-anfanger-4',
    ]);
    assert.equal(
      (await createCourse(f.db, f.schoolB, { title: 'Ölmalerei für Anfänger' })).slug,
      'olmalerei-fur-anfanger',
    );
    assert.equal((await createCourse(f.db, f.schoolA, { title: '—' })).slug, 'course');
    assert.equal((await findCourse(f.db, f.schoolA, one.id))?.slug, one.slug);
  });

  it('refuses bad input with 422 naming each field', async () => {
    const p = await problemOf(
      createCourse(f.db, f.schoolA, {
        slug: 'Bad Slug',
        title: '',
        priceAmount: -5,
        currency: 'usd',
        status: 'live' as never,
      }),
    );
    assert.equal(p.status, 422);
    assert.deepEqual(
      (p.errors as Array<{ field: string }>).map((e) => e.field),
      ['title', 'slug', 'status', 'priceAmount', 'currency'],
    );
  });

  it('publishes, stamping publishedAt once, and updates price and lecturers', async () => {
    const lecturer = await createLecturer(f.db, f.schoolA, { name: 'Ada' });
    const course = await createCourse(f.db, f.schoolA, { slug: 'pub', title: 'Pub', priceAmount: 1999 });
    const published = await updateCourse(f.db, f.schoolA, course.id, {
      status: 'published',
      lecturerIds: [lecturer.id],
    });
    assert.equal(published.status, 'published');
    assert.ok(published.publishedAt);
    assert.deepEqual(published.lecturers, [{ id: lecturer.id, name: 'Ada' }]);
    const again = await updateCourse(f.db, f.schoolA, course.id, { priceAmount: 2999, currency: 'EUR' });
    assert.equal(again.publishedAt, published.publishedAt);
    assert.equal(again.priceAmount, 2999);
    assert.equal(again.currency, 'EUR');
    const foreign = await createLecturer(f.db, f.schoolB, { name: 'Not ours' });
    assert.equal(
      (await problemOf(updateCourse(f.db, f.schoolA, course.id, { lecturerIds: [foreign.id] }))).status,
      422,
    );
  });

  it('lists and filters by status, text and lecturer; counts the same', async () => {
    const lecturer = await createLecturer(f.db, f.schoolA, { name: 'Grace' });
    await createCourse(f.db, f.schoolA, {
      slug: 'ts-basics',
      title: 'TypeScript Basics',
      status: 'published',
      lecturerIds: [lecturer.id],
    });
    await createCourse(f.db, f.schoolA, { slug: 'ts-archive', title: 'Old TypeScript', status: 'archived' });
    const published = await listCourses(f.db, f.schoolA, { status: 'published' });
    assert.ok(published.data.every((c) => c.status === 'published'));
    assert.equal(await countCourses(f.db, f.schoolA, { status: 'published' }), published.data.length);
    const search = await listCourses(f.db, f.schoolA, { search: 'typescript' });
    assert.deepEqual(search.data.map((c) => c.slug).sort(), ['ts-archive', 'ts-basics']);
    const catalogue = await searchCatalogue(f.db, f.schoolA, 'TYPESCRIPT');
    assert.deepEqual(
      catalogue.data.map((c) => c.slug),
      ['ts-basics'],
    );
    const byLecturer = await listCourses(f.db, f.schoolA, { lecturerId: lecturer.id });
    assert.deepEqual(
      byLecturer.data.map((c) => c.slug),
      ['ts-basics'],
    );
    // LIKE wildcards in the search text are taken literally.
    assert.equal((await listCourses(f.db, f.schoolA, { search: '%' })).data.length, 0);
  });

  it('isolates schools: another school id is not found, not listed, not changed', async () => {
    const theirs = await createCourse(f.db, f.schoolB, { slug: 'theirs', title: 'Theirs' });
    assert.equal(await findCourse(f.db, f.schoolA, theirs.id), undefined);
    assert.equal((await problemOf(getCourse(f.db, f.schoolA, theirs.id))).code, 'not_found');
    assert.equal((await problemOf(updateCourse(f.db, f.schoolA, theirs.id, { title: 'x' }))).status, 404);
    assert.equal((await problemOf(deleteCourse(f.db, f.schoolA, theirs.id))).status, 404);
    const all = await listCourses(f.db, f.schoolA, {}, { limit: 100 });
    assert.ok(all.data.every((c) => c.schoolId === f.schoolA));
    assert.equal((await getCourse(f.db, f.schoolB, theirs.id)).title, 'Theirs');
  });

  it('deletes a course', async () => {
    const course = await createCourse(f.db, f.schoolA, { slug: 'gone', title: 'Gone' });
    await deleteCourse(f.db, f.schoolA, course.id);
    assert.equal(await findCourse(f.db, f.schoolA, course.id), undefined);
  });
});
