/**
 * Changing a course's lectures recomputes the progress of every enrollment of the course, while
 * operators may be deleting some of those enrollments, and members recording progress in them,
 * at the same moment. Every request must succeed (or answer a clean 4xx) and leave each remaining
 * enrollment's progress as its completed lectures say. On SQLite writers take turns; on
 * PostgreSQL these interleaved and failed as 500s (deadlocks, rows vanishing mid-recomputation).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import { sql } from 'kysely';
import { enroll } from '../../src/domain/learning/enrollments.ts';
import { recomputeCourseProgress } from '../../src/domain/learning/lecture-progress.ts';
import { isoNow } from '../../src/store/time.ts';
import { gql } from '../account/graphql.ts';
import { api } from '../admin/api.ts';
import { ENGINE } from '../support/database.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';
import { addPerson, createWorld, type SeededSchool } from '../support/world.ts';

const STUDENTS = 24;
const LECTURES = 12;
/** Curriculum changes per test: each round adds one lecture and deletes one. */
const ROUNDS = 6;
/** Enrollments left for the final check, and the pause between two requests of one stream. */
const KEEP = 8;
const PACE_MS = 3;
/** Members recording progress (each needs a token of their own). */
const MEMBERS = 8;

/** An answer as the assertions read it: its status and, for a problem, its code. */
type Reply = { status: number; body?: { code?: string } };

interface RaceCourse {
  id: string;
  sectionId: string;
  /** The course's lectures as the test knows them, oldest first. */
  lectures: string[];
  students: { userId: string; enrollmentId: string }[];
}

// A logged error in one line: its kind, message and the database's detail, if any.
function errorOf(err: unknown): string {
  const e = (err ?? {}) as { type?: string; message?: string; detail?: string; where?: string };
  return [e.type, e.message, e.detail, e.where].filter(Boolean).join(' | ');
}

describe(`lecture changes racing enrollment changes on ${ENGINE}`, () => {
  let t: LoggedTestApp;
  let school: SeededSchool;
  let call: ReturnType<typeof api>;
  let n = 0;

  before(async () => {
    // Unhandled errors are logged at `error`: kept so a failure names the database's error.
    t = await createLoggedTestApp({ LOG_LEVEL: 'error' });
    school = (await createWorld(t)).demo;
    call = api(t, await school.token());
  });
  // Each test answers for the errors logged while it ran.
  beforeEach(() => {
    t.logs.length = 0;
  });
  after(() => t.close());

  // A course of the demo school whose students each completed a few lectures, spread so that
  // every lecture has progress rows for a deletion to cascade to.
  async function raceCourse(): Promise<RaceCourse> {
    const id = (await call('POST', '/api/v1/courses', { slug: `race-${++n}`, title: `Race ${n}` })).body.id;
    const sectionId = (await call('POST', `/api/v1/courses/${id}/sections`, { title: 'All' })).body.id;
    const lectures: string[] = [];
    for (let i = 0; i < LECTURES; i++) {
      const r = await call('POST', `/api/v1/sections/${sectionId}/lectures`, {
        title: `L${i}`,
        type: 'text',
      });
      lectures.push(r.body.id);
    }
    const db = t.runtime.db;
    const students: RaceCourse['students'] = [];
    for (let i = 0; i < STUDENTS; i++) {
      const userId = await addPerson(db, school.schoolId, ['student']);
      students.push({
        userId,
        enrollmentId: (await enroll(db, school.schoolId, { userId, courseId: id })).id,
      });
    }
    // Written at once (recording each would recompute each time), then recomputed once.
    const now = isoNow();
    const progress = students.flatMap((s, i) =>
      [i, i + 1, i + 5].map((k) => ({
        enrollment_id: s.enrollmentId,
        lecture_id: lectures[k % LECTURES],
        position_seconds: 9,
        completed_at: now,
        updated_at: now,
      })),
    );
    await db.insertInto('lecture_progress').values(progress).execute();
    await recomputeCourseProgress(db, school.schoolId, id);
    return { id, sectionId, lectures, students };
  }

  // An operator adding a lecture and deleting the oldest, ROUNDS times; each change recomputes
  // every enrollment of the course. Calls `done` when finished so the other streams stop.
  async function churnCurriculum(course: RaceCourse, replies: Reply[], done: () => void): Promise<void> {
    for (let round = 0; round < ROUNDS; round++) {
      const body = { title: `R${round}`, type: 'text' };
      const added = await call('POST', `/api/v1/sections/${course.sectionId}/lectures`, body);
      replies.push(added);
      if (added.status === 201) course.lectures.push(added.body.id);
      replies.push(await call('DELETE', `/api/v1/lectures/${course.lectures.shift()}`));
    }
    done();
  }

  // What went wrong on the server: 5xx answers and the errors it logged.
  function serverFailures(replies: readonly Reply[]): string[] {
    return replies
      .filter((r) => r.status >= 500)
      .map((r) => `${r.status} ${r.body?.code}`)
      .concat(t.logs.map((l) => `${l.method ?? ''} ${l.path}: ${errorOf(l.err)}`));
  }

  // Each remaining enrollment's percent and completion as its completed lectures say now.
  async function assertProgressExact(course: RaceCourse): Promise<void> {
    const db = t.runtime.db;
    const left = await db
      .selectFrom('enrollments')
      .select(['id', 'progress_percent', 'completed_at'])
      .where('course_id', '=', course.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      left.map((e) => e.id),
      course.students.map((s) => s.enrollmentId).sort(),
    );
    const lectures = await db
      .selectFrom('lectures')
      .select('id')
      .where('course_id', '=', course.id)
      .execute();
    assert.deepEqual(lectures.map((l) => l.id).sort(), [...course.lectures].sort());
    const done = await db
      .selectFrom('lecture_progress')
      .innerJoin('lectures', 'lectures.id', 'lecture_progress.lecture_id')
      .select(['lecture_progress.enrollment_id as id', sql<number>`count(*)`.as('n')])
      .where('lectures.course_id', '=', course.id)
      .where('lecture_progress.completed_at', 'is not', null)
      .groupBy('lecture_progress.enrollment_id')
      .execute();
    const doneOf = new Map(done.map((d) => [d.id, Number(d.n)]));
    for (const e of left) {
      const expected = Math.floor(((doneOf.get(e.id) ?? 0) * 100) / lectures.length);
      assert.equal(e.progress_percent, expected, `progress of ${e.id}`);
      assert.equal(e.completed_at !== null, expected === 100, `completion of ${e.id}`);
    }
  }

  it('lecture creates and deletes against enrollment deletes: all succeed, progress exact', async () => {
    const course = await raceCourse();
    const replies: Reply[] = [];
    let changing = true;
    // Two operators deleting enrollments, paced so the deletes land during recomputations.
    const unenrolls = async () => {
      while (changing && course.students.length > KEEP) {
        const gone = course.students.shift()!;
        replies.push(await call('DELETE', `/api/v1/enrollments/${gone.enrollmentId}`));
        await setTimeout(PACE_MS);
      }
    };
    const stop = () => {
      changing = false;
    };
    await Promise.all([churnCurriculum(course, replies, stop), unenrolls(), unenrolls()]);
    assert.deepEqual(serverFailures(replies), []);
    assert.deepEqual(
      replies.filter((r) => r.status >= 300).map((r) => `${r.status} ${r.body?.code}`),
      [],
      'every create and delete succeeded',
    );
    await assertProgressExact(course);
  });

  it('lecture creates and deletes against members recording progress: all succeed, progress exact', async () => {
    const course = await raceCourse();
    const replies: Reply[] = [];
    const RECORD = `mutation($input: RecordLectureProgressInput!) {
      recordLectureProgress(input: $input) { enrolledCourse { progressPercent } }
    }`;
    const scopes = ['openid', 'account:read', 'account:write'];
    const tokens: string[] = [];
    for (const s of course.students.slice(0, MEMBERS))
      tokens.push(await school.token(scopes, 'member', s.userId));
    let changing = true;
    // Two members at a time completing lectures, the newest ones included (a lecture may be gone
    // by the time the request lands: that is a typed error, not a failure).
    const records = async (offset: number) => {
      for (let i = offset; changing; i += 2) {
        const lectureId = course.lectures[(i * 7) % course.lectures.length];
        const input = { lectureId, positionSeconds: 1, completed: true };
        const r = await gql(t, tokens[i % tokens.length], RECORD, { input });
        const codes = (r.body.errors ?? []).map((e) => String(e.extensions?.code));
        const failed = codes.some((c) => c !== 'NOT_FOUND');
        replies.push({ status: failed ? 500 : r.status, body: { code: codes.join(',') } });
        await setTimeout(PACE_MS);
      }
    };
    const stop = () => {
      changing = false;
    };
    await Promise.all([churnCurriculum(course, replies, stop), records(0), records(1)]);
    assert.deepEqual(serverFailures(replies), []);
    assert.deepEqual(
      replies.filter((r) => r.status >= 300).map((r) => `${r.status} ${r.body?.code}`),
      [],
      'every request succeeded',
    );
    await assertProgressExact(course);
  });
});
