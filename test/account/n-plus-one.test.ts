import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccountApp } from '../../src/account/routes.ts';
import { newId } from '../../src/crypto/ids.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { createBearerVerifier } from '../../src/resource/verifier.ts';
import { isoNow } from '../../src/store/time.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { StatementCounter } from '../support/statements.ts';
import { issueTestToken } from '../support/tokens.ts';

const COURSES = 100;
const SECTIONS = 2;
const LECTURES = 3;

describe('Account API is N+1 free: a bounded number of SQL statements whatever the page size', () => {
  let t: TestApp;
  let token: string;
  const counter = new StatementCounter();
  let request: (query: string) => Promise<{ status: number; body: { data?: unknown; errors?: unknown } }>;

  before(async () => {
    t = await createTestApp();
    const db = t.runtime.db;
    const school = await createSchool(db, { name: 'Big School', subdomain: 'big' });
    const user = await createUser(db, { email: 'busy@example.com', name: 'Busy', passwordHash: null });
    await addRoles(db, school.id, user.id, ['student']);
    const now = isoNow();
    const courses = [];
    const sections = [];
    const lectures = [];
    const enrollments = [];
    const progress = [];
    for (let c = 0; c < COURSES; c++) {
      const courseId = newId('crs');
      courses.push({
        id: courseId,
        school_id: school.id,
        slug: `course-${c}`,
        title: `Course ${c}`,
        description: '',
        status: 'published' as const,
        price_amount: 0,
        currency: 'USD',
        image_url: null,
        published_at: now,
        created_at: now,
        updated_at: now,
      });
      const enrollmentId = newId('enr');
      let firstLecture = '';
      for (let s = 0; s < SECTIONS; s++) {
        const sectionId = newId('sec');
        sections.push({
          id: sectionId,
          school_id: school.id,
          course_id: courseId,
          title: `S${s}`,
          position: s + 1,
          created_at: now,
          updated_at: now,
        });
        for (let l = 0; l < LECTURES; l++) {
          const lectureId = newId('lec');
          firstLecture ||= lectureId;
          lectures.push({
            id: lectureId,
            school_id: school.id,
            course_id: courseId,
            section_id: sectionId,
            title: `L${l}`,
            type: 'video' as const,
            duration_seconds: 60,
            is_free_preview: 0,
            position: l + 1,
            body: null,
            video_url: null,
            file_id: null,
            created_at: now,
            updated_at: now,
          });
        }
      }
      enrollments.push({
        id: enrollmentId,
        school_id: school.id,
        user_id: user.id,
        course_id: courseId,
        enrolled_at: now,
        expires_at: null,
        progress_percent: 16,
        completed_at: null,
        last_lecture_id: firstLecture,
        last_position_seconds: 30,
        last_watched_at: now,
        source: 'manual' as const,
        created_at: now,
        updated_at: now,
      });
      progress.push({
        enrollment_id: enrollmentId,
        lecture_id: firstLecture,
        position_seconds: 60,
        completed_at: now,
        updated_at: now,
      });
    }
    // Chunked: SQLite caps bound parameters per statement.
    const chunks = <T>(rows: T[], n = 50) =>
      Array.from({ length: Math.ceil(rows.length / n) }, (_, i) => rows.slice(i * n, i * n + n));
    for (const part of chunks(courses)) await db.insertInto('courses').values(part).execute();
    for (const part of chunks(sections)) await db.insertInto('sections').values(part).execute();
    for (const part of chunks(lectures)) await db.insertInto('lectures').values(part).execute();
    for (const part of chunks(enrollments)) await db.insertInto('enrollments').values(part).execute();
    for (const part of chunks(progress)) await db.insertInto('lecture_progress').values(part).execute();
    token = (
      await issueTestToken(t, {
        userId: user.id,
        schoolId: school.id,
        scopes: ['account:read'],
        audience: 'member',
      })
    ).token;

    // The Account app over the same database, seen through a statement counter.
    const counted = db.withPlugin(counter);
    const app = createAccountApp({
      ...t.runtime,
      db: counted,
      verifier: createBearerVerifier({ db: counted, config: t.config }),
    });
    request = async (query) => {
      const res = await app.request(new URL('/account/graphql', t.config.baseUrl).toString(), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ query }),
      });
      return { status: res.status, body: await res.json() };
    };
  });
  after(() => t.close());

  const measure = async (query: string) => {
    counter.count = 0;
    const res = await request(query);
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
    assert.equal(res.body.errors, undefined);
    return { statements: counter.count, data: res.body.data as { viewer: { enrolledCourses: Conn } } };
  };
  interface Conn {
    totalCount: number;
    nodes: Array<{ course: { sections: Array<{ lectures: Array<{ progress: unknown }> }> } }>;
  }
  const tree = (first: number) => `{ viewer { email enrolledCourses(first: ${first}) { totalCount nodes {
    slug lastWatchedLecture { lectureId positionSeconds }
    course { id title lectureCount sections { id title lectures { id title progress { positionSeconds completed } } } }
  } } } }`;

  it('100 enrollments with courses, sections, lectures and lecture progress: 8 statements, same as 5', async () => {
    const big = await measure(tree(100));
    const conn = big.data.viewer.enrolledCourses;
    assert.equal(conn.totalCount, COURSES);
    assert.equal(conn.nodes.length, COURSES);
    const lectureCount = conn.nodes.flatMap((n) => n.course.sections.flatMap((s) => s.lectures)).length;
    assert.equal(lectureCount, COURSES * SECTIONS * LECTURES);
    const withProgress = conn.nodes.flatMap((n) =>
      n.course.sections.flatMap((s) => s.lectures.filter((l) => l.progress !== null)),
    );
    assert.equal(withProgress.length, COURSES);
    // token check (with the user), enrollments page, count, courses, enrolled course ids,
    // sections, lectures, lecture progress.
    assert.equal(big.statements, 8);
    const small = await measure(tree(5));
    assert.equal(small.statements, big.statements);
  });

  it('the spec §2.5 query costs 2 statements: the token check (with the user), one page of enrollments', async () => {
    const res = await measure(`{ viewer { id email enrolledCourses(first: 10) { nodes {
      slug expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } } } } }`);
    assert.equal(res.statements, 2);
  });
});
