/**
 * What a lecturer reaches in the console (product.md §8; domain/school/standing.ts): the courses
 * they teach, those courses' curriculum, their students' progress; nothing else. Operations run
 * through the console's one gate (web/admin/console-kit.ts), the same one every console page uses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findSchoolById } from '../../src/domain/school/schools.ts';
import { findUserById } from '../../src/domain/school/users.ts';
import { ProblemError } from '../../src/errors/problem-error.ts';
import type { Area } from '../../src/web/admin/area.ts';
import { teachingOf } from '../../src/web/admin/area.ts';
import { mayRun, runForConsole } from '../../src/web/admin/console-kit.ts';
import type { Viewer } from '../../src/web/shared/page-kit.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { createWorld, type World } from '../support/world.ts';
import { locationOf, signedIn } from './pages-support.ts';

describe('the console for lecturers: the courses they teach, nothing else', () => {
  let t: TestApp;
  let world: World;
  let leo: Area;

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    const db = t.runtime.db;
    const school = (await findSchoolById(db, world.demo.schoolId))!;
    const user = (await findUserById(db, world.demo.lecturerId))!;
    leo = {
      viewer: { user } as Viewer,
      school,
      roles: ['lecturer'],
      teaching: await teachingOf(t.runtime, school.id, user.id),
      schools: [],
      developers: false,
      disabledWebhooks: 0,
    };
  });
  after(() => t.close());

  const run = (name: string, raw: Parameters<typeof runForConsole>[3]) =>
    runForConsole(t.runtime, leo, name, raw);
  const refused = async (promise: Promise<unknown>, status: number, code: string) => {
    await assert.rejects(promise, (err: unknown) => {
      assert.ok(err instanceof ProblemError, String(err));
      assert.equal(err.status, status);
      assert.equal(err.code, code);
      return true;
    });
  };

  it('lists only the courses they teach (Leo teaches three of the four Demo Academy courses)', async () => {
    const { body } = await run('courses.list', { query: {} });
    const slugs = (body as { data: { slug: string }[] }).data.map((c) => c.slug).sort();
    assert.deepEqual(slugs, [
      'advanced-course-marketing',
      'getting-started-with-typescript',
      'web-accessibility-essentials',
    ]);
    // Asking for another lecturer's list changes nothing: the list is narrowed to their own.
    const asked = await run('courses.list', { query: { lecturer_id: 'lec_someone_else' } });
    assert.equal((asked.body as { data: unknown[] }).data.length, 3);
  });

  it('edits the curriculum of a course they teach, and of no other (same answer as an unknown course)', async () => {
    const made = await run('curriculum.create_section', {
      params: { course_id: world.demo.courseIds.typescript },
      body: { title: 'Bonus material' },
    });
    assert.equal(made.status, 201);
    const section = made.body as { id: string };
    const lecture = await run('curriculum.create_lecture', {
      params: { section_id: section.id },
      body: { title: 'Thanks for watching', type: 'text', body: 'See you next time.' },
    });
    assert.equal(lecture.status, 201);

    const sql = world.demo.courseIds.sql;
    await refused(run('curriculum.get', { params: { course_id: sql } }), 404, 'not_found');
    await refused(
      run('curriculum.create_section', { params: { course_id: sql }, body: { title: 'Nope' } }),
      404,
      'not_found',
    );
    await refused(
      run('courses.get', { params: { course_id: world.other.courseIds.other } }),
      404,
      'not_found',
    );
    const sqlCurriculum = await runForConsole(
      t.runtime,
      { ...leo, roles: ['owner'], teaching: undefined },
      'curriculum.get',
      { params: { course_id: sql } },
    );
    const sqlSection = (sqlCurriculum.body as { sections: { id: string }[] }).sections[0];
    // Reaching a course through its section is the same rule.
    await refused(
      run('curriculum.update_section', {
        params: { section_id: sqlSection.id },
        body: { title: 'Mine now' },
      }),
      404,
      'not_found',
    );
  });

  it('reads the progress of their own courses’ students only', async () => {
    const ts = await run('students.list_enrollments', {
      query: { course_id: world.demo.courseIds.typescript },
    });
    assert.ok((ts.body as { data: unknown[] }).data.length > 0);
    await refused(run('students.list_enrollments', { query: {} }), 404, 'not_found');
    await refused(
      run('students.list_enrollments', { query: { course_id: world.demo.courseIds.sql } }),
      404,
      'not_found',
    );
  });

  it('runs nothing else: coupons, orders, members, settings, enrolling people, the school’s files', async () => {
    for (const name of [
      'coupons.list',
      'orders.list',
      'members.list',
      'school.get',
      'students.enroll',
      // Uploading a lecture's file, yes; the school's other files (another course's paid
      // content), no.
      'storage.list',
      'storage.get',
      'storage.download',
    ]) {
      assert.equal(mayRun(leo, name), false, name);
    }
    await refused(run('coupons.list', { query: {} }), 403, 'forbidden');
    await refused(
      run('courses.update', { params: { course_id: world.demo.courseIds.typescript }, body: { title: 'x' } }),
      403,
      'forbidden',
    );
  });

  it('acts as the person: what their roles grant, never a token holding every scope', async () => {
    // A person whose roles grant no admin resource runs nothing, whatever page let them in.
    const nobody: Area = { ...leo, roles: ['student'], teaching: undefined };
    for (const name of ['courses.list', 'coupons.list', 'school.get', 'members.update']) {
      assert.equal(mayRun(nobody, name), false, name);
    }
    await refused(runForConsole(t.runtime, nobody, 'courses.list', { query: {} }), 403, 'forbidden');
    // An admin's roles grant every operation, and reach the whole school.
    const admin: Area = { ...leo, roles: ['admin'], teaching: undefined };
    assert.equal(mayRun(admin, 'members.update'), true);
    const all = await runForConsole(t.runtime, admin, 'courses.list', { query: {} });
    assert.equal((all.body as { data: unknown[] }).data.length, 4);
    // Uploading a lecture's file is a lecturer's; the file they uploaded is not theirs to read
    // back (no stored file belongs to a course).
    assert.equal(mayRun(leo, 'storage.upload'), true);
    await refused(run('storage.delete', { params: { file_id: 'fil_any' } }), 403, 'forbidden');
  });

  it('pages for owners and admins refuse a lecturer and point to their courses', async () => {
    const browser = await signedIn(t, 'lecturer@example.com');
    const demo = world.demo.schoolId;
    const home = await browser.request(`/admin/${demo}`);
    assert.equal(home.status, 302);
    assert.equal(locationOf(home), `/admin/${demo}/courses`);
    for (const path of ['/members', '/webhooks', '/audit', '/locked', '/connected']) {
      const res = await browser.request(`/admin/${demo}${path}`);
      assert.equal(res.status, 403, path);
      const body = await res.text();
      assert.match(body, /For owners and admins/, path);
      assert.match(body, new RegExp(`href="/admin/${demo}/courses">Go to your courses`), path);
    }
    // Another school's console, where they are nobody: the plain refusal.
    const other = await browser.request(`/admin/${world.other.schoolId}`);
    assert.equal(other.status, 403);
    assert.match(await other.text(), /Not an operator/);
  });
});

describe('the console pages a lecturer opens: their courses’ curriculum and students', () => {
  let t: TestApp;
  let world: World;
  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
  });
  after(() => t.close());

  it('Students and progress of a course they teach: names, progress, access in words', async () => {
    const leo = await signedIn(t, 'lecturer@example.com');
    const demo = world.demo.schoolId;
    const ts = world.demo.courseIds.typescript;
    const res = await leo.request(`/admin/${demo}/courses/${ts}/students`);
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.match(page, /<h1>Students of Getting Started with TypeScript<\/h1>/);
    assert.match(page, /Sam Student<br><span class="muted">student@example\.com<\/span>/);
    assert.match(
      page,
      /<progress max="100" value="50" aria-label="Progress of Sam Student">50 %<\/progress> 50 %/,
    );
    assert.doesNotMatch(page, /usr_|enr_/);
    // The course they do not teach is not there for them; the owner sees it.
    const sql = world.demo.courseIds.sql;
    assert.equal((await leo.request(`/admin/${demo}/courses/${sql}/students`)).status, 404);
    const owner = await signedIn(t, 'owner@example.com');
    assert.equal((await owner.request(`/admin/${demo}/courses/${sql}/students`)).status, 200);
  });

  it('the curriculum editor opens for a course they teach and is a 404 for any other', async () => {
    const leo = await signedIn(t, 'lecturer@example.com');
    const demo = world.demo.schoolId;
    const own = await leo.request(`/admin/${demo}/courses/${world.demo.courseIds.typescript}/curriculum`);
    assert.equal(own.status, 200);
    assert.match(await own.text(), /Add section/);
    for (const course of [world.demo.courseIds.sql, world.other.courseIds.other]) {
      assert.equal((await leo.request(`/admin/${demo}/courses/${course}/curriculum`)).status, 404);
    }
    // Settings, coupons and orders are the owners' and admins'.
    for (const path of ['/coupons', '/orders', '/analytics', '/school', '/files']) {
      assert.equal((await leo.request(`/admin/${demo}${path}`)).status, 403, path);
    }
  });
});
