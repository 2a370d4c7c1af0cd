import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import { createLecture, createSection, deleteLecture } from '../../src/domain/catalog/curriculum.ts';
import {
  countEnrollments,
  enroll,
  findEnrollmentOf,
  getEnrollment,
  listEnrollments,
  listLectureProgress,
  setEnrollmentExpiry,
  unenroll,
} from '../../src/domain/learning/enrollments.ts';
import { recordLectureProgress } from '../../src/domain/learning/record-progress.ts';
import { findMembership } from '../../src/domain/school/memberships.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { isoIn } from '../../src/store/time.ts';
import { createDomainFixture, type DomainFixture } from '../support/world-domain.ts';
import { problemOf } from './problem-of.ts';

describe('enrollments and progress repository contract', () => {
  let f: DomainFixture;
  let courseId: string;
  let lectures: string[];
  before(async () => {
    f = await createDomainFixture();
    const course = await createCourse(f.db, f.schoolA, { slug: 'c', title: 'C', status: 'published' });
    courseId = course.id;
    const s1 = await createSection(f.db, f.schoolA, courseId, { title: 'One' });
    const s2 = await createSection(f.db, f.schoolA, courseId, { title: 'Two' });
    lectures = [];
    for (const [section, n] of [
      [s1.id, 2],
      [s2.id, 2],
    ] as const) {
      for (let i = 0; i < n; i++) {
        lectures.push((await createLecture(f.db, f.schoolA, section, { title: `L${i}`, type: 'video' })).id);
      }
    }
  });
  after(() => f.close());

  it('enrolls with lifetime access by default; twice is 409 already_enrolled', async () => {
    const e = await enroll(f.db, f.schoolA, { userId: f.alice, courseId });
    assert.match(e.id, /^enr_/);
    assert.equal(e.expiresAt, null);
    assert.equal(e.lifetime, true);
    assert.equal(e.active, true);
    assert.equal(e.progressPercent, 0);
    assert.equal(e.source, 'manual');
    assert.deepEqual(e.course, { id: courseId, title: 'C', slug: 'c' });
    assert.deepEqual(e.user, { id: f.alice, name: 'Alice', email: 'alice@example.com' });
    assert.equal(
      (await problemOf(enroll(f.db, f.schoolA, { userId: f.alice, courseId }))).code,
      'already_enrolled',
    );
  });

  it('answers concurrent enrollments of one person with one enrollment and 409s', async () => {
    const course = await createCourse(f.db, f.schoolA, { slug: 'race', title: 'Race' });
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, () => enroll(f.db, f.schoolA, { userId: f.bob, courseId: course.id })),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results) {
      if (r.status === 'rejected') assert.equal((r.reason as { code: string }).code, 'already_enrolled');
    }
    assert.equal(await countEnrollments(f.db, f.schoolA, { courseId: course.id }), 1);
    const winner = results.find((r) => r.status === 'fulfilled')!;
    await unenroll(f.db, f.schoolA, (winner as PromiseFulfilledResult<{ id: string }>).value.id);
  });

  it('makes a user without a role at the school its student', async () => {
    const dan = await createUser(f.db, { email: 'dan@example.com', name: 'Dan', passwordHash: null });
    await enroll(f.db, f.schoolA, { userId: dan.id, courseId, expiresAt: isoIn(86400) });
    assert.deepEqual((await findMembership(f.db, f.schoolA, dan.id))?.roles, ['student']);
  });

  it('records progress: upsert, last watched, percent of completed lectures, completion at 100', async () => {
    let r = await recordLectureProgress(f.db, f.schoolA, f.alice, {
      lectureId: lectures[0],
      positionSeconds: 30,
    });
    assert.equal(r.enrollment.progressPercent, 0);
    assert.equal(r.enrollment.lastLectureId, lectures[0]);
    assert.equal(r.enrollment.lastPositionSeconds, 30);
    assert.ok(r.enrollment.lastWatchedAt);
    assert.deepEqual(
      { ...r.lecture, updatedAt: undefined },
      {
        lectureId: lectures[0],
        positionSeconds: 30,
        completed: false,
        completedAt: null,
        updatedAt: undefined,
      },
    );
    r = await recordLectureProgress(f.db, f.schoolA, f.alice, {
      lectureId: lectures[0],
      positionSeconds: 300,
      completed: true,
    });
    assert.equal(r.enrollment.progressPercent, 25);
    assert.equal(r.lecture.completed, true);
    const firstCompletion = r.lecture.completedAt;
    // Re-watching does not un-complete.
    r = await recordLectureProgress(f.db, f.schoolA, f.alice, {
      lectureId: lectures[0],
      positionSeconds: 10,
      completed: false,
    });
    assert.equal(r.lecture.completedAt, firstCompletion);
    assert.equal(r.lecture.positionSeconds, 10);
    assert.equal(r.enrollment.progressPercent, 25);
    r = await recordLectureProgress(f.db, f.schoolA, f.alice, {
      lectureId: lectures[1],
      positionSeconds: 5,
      completed: true,
    });
    assert.equal(r.enrollment.progressPercent, 50);
    assert.equal(r.enrollment.completedAt, null);
    r = await recordLectureProgress(f.db, f.schoolA, f.alice, {
      lectureId: lectures[2],
      positionSeconds: 5,
      completed: true,
    });
    assert.equal(r.enrollment.progressPercent, 75);
    r = await recordLectureProgress(f.db, f.schoolA, f.alice, {
      lectureId: lectures[3],
      positionSeconds: 42,
      completed: true,
    });
    assert.equal(r.enrollment.progressPercent, 100);
    assert.ok(r.enrollment.completedAt);
    assert.equal(r.enrollment.lastLectureId, lectures[3]);
    assert.equal(r.enrollment.lastPositionSeconds, 42);
    const progress = await listLectureProgress(f.db, f.schoolA, r.enrollment.id);
    assert.deepEqual(
      progress.map((p) => [p.lectureId, p.completed]),
      lectures.map((l) => [l, true]),
    );
  });

  it('recomputes progress when the curriculum changes', async () => {
    const e = (await findEnrollmentOf(f.db, f.schoolA, f.alice, courseId))!;
    const section = (
      await f.db.selectFrom('sections').select('id').where('course_id', '=', courseId).execute()
    )[0];
    const extra = await createLecture(f.db, f.schoolA, section.id, { title: 'New', type: 'text' });
    let now = await getEnrollment(f.db, f.schoolA, e.id);
    assert.equal(now.progressPercent, 80);
    assert.equal(now.completedAt, null);
    await deleteLecture(f.db, f.schoolA, extra.id);
    now = await getEnrollment(f.db, f.schoolA, e.id);
    assert.equal(now.progressPercent, 100);
    assert.ok(now.completedAt);
  });

  it('refuses progress with typed problems: lecture_not_found, not_enrolled, access_expired', async () => {
    assert.deepEqual(
      await problemOf(
        recordLectureProgress(f.db, f.schoolA, f.alice, { lectureId: 'lec_nope', positionSeconds: 1 }),
      ),
      { status: 404, code: 'lecture_not_found', errors: undefined },
    );
    // A lecture of another school is not found either.
    const theirs = await createCourse(f.db, f.schoolB, { slug: 'b', title: 'B' });
    const sec = await createSection(f.db, f.schoolB, theirs.id, { title: 'S' });
    const lec = await createLecture(f.db, f.schoolB, sec.id, { title: 'L', type: 'text' });
    assert.equal(
      (
        await problemOf(
          recordLectureProgress(f.db, f.schoolA, f.alice, { lectureId: lec.id, positionSeconds: 1 }),
        )
      ).code,
      'lecture_not_found',
    );
    assert.deepEqual(
      await problemOf(
        recordLectureProgress(f.db, f.schoolA, f.bob, { lectureId: lectures[0], positionSeconds: 1 }),
      ),
      { status: 403, code: 'not_enrolled', errors: undefined },
    );
    const e = await enroll(f.db, f.schoolA, { userId: f.bob, courseId, expiresAt: isoIn(-60) });
    assert.equal(e.active, false);
    assert.deepEqual(
      await problemOf(
        recordLectureProgress(f.db, f.schoolA, f.bob, { lectureId: lectures[0], positionSeconds: 1 }),
      ),
      { status: 403, code: 'access_expired', errors: undefined },
    );
    const extended = await setEnrollmentExpiry(f.db, f.schoolA, e.id, isoIn(3600));
    assert.equal(extended.active, true);
    const r = await recordLectureProgress(f.db, f.schoolA, f.bob, {
      lectureId: lectures[0],
      positionSeconds: 1,
    });
    assert.equal(r.enrollment.id, e.id);
    const lifetime = await setEnrollmentExpiry(f.db, f.schoolA, e.id, null);
    assert.equal(lifetime.lifetime, true);
    assert.equal(
      (
        await problemOf(
          recordLectureProgress(f.db, f.schoolA, f.bob, { lectureId: lectures[0], positionSeconds: -1 }),
        )
      ).status,
      422,
    );
  });

  it('lists by course, by user and by state, paginated, counted, isolated', async () => {
    const carolCourse = await createCourse(f.db, f.schoolB, { slug: 'cc', title: 'CC' });
    await enroll(f.db, f.schoolB, { userId: f.carol, courseId: carolCourse.id });
    const all = await listEnrollments(f.db, f.schoolA, { courseId });
    assert.equal(all.data.length, 3);
    assert.ok(all.data.every((e) => e.schoolId === f.schoolA));
    assert.equal(await countEnrollments(f.db, f.schoolA, { courseId }), 3);
    const mine = await listEnrollments(f.db, f.schoolA, { userId: f.alice });
    assert.deepEqual(
      mine.data.map((e) => e.userId),
      [f.alice],
    );
    assert.equal((await listEnrollments(f.db, f.schoolA, { state: 'completed' })).data.length, 1);
    assert.equal((await listEnrollments(f.db, f.schoolA, { state: 'active' })).data.length, 3);
    assert.equal((await listEnrollments(f.db, f.schoolA, { state: 'expired' })).data.length, 0);
    const p1 = await listEnrollments(f.db, f.schoolA, {}, { limit: 2 });
    const p2 = await listEnrollments(f.db, f.schoolA, {}, { limit: 2, cursor: p1.next_cursor });
    assert.equal(p1.data.length, 2);
    assert.equal(p2.data.length, 1);
    assert.equal(p2.next_cursor, null);
    assert.equal((await listEnrollments(f.db, f.schoolA, { userId: f.carol })).data.length, 0);
    assert.equal(
      (await problemOf(listEnrollments(f.db, f.schoolA, { state: 'bogus' as never }))).status,
      422,
    );
  });

  it('unenrolls, dropping progress; another school cannot', async () => {
    const e = (await findEnrollmentOf(f.db, f.schoolA, f.bob, courseId))!;
    assert.equal((await problemOf(unenroll(f.db, f.schoolB, e.id))).status, 404);
    assert.equal((await problemOf(getEnrollment(f.db, f.schoolB, e.id))).code, 'not_found');
    await unenroll(f.db, f.schoolA, e.id);
    assert.equal(await findEnrollmentOf(f.db, f.schoolA, f.bob, courseId), undefined);
    const left = await f.db
      .selectFrom('lecture_progress')
      .select('lecture_id')
      .where('enrollment_id', '=', e.id)
      .execute();
    assert.deepEqual(left, []);
  });
});
