/**
 * A school whose subdomain has consecutive hyphens (an internationalised name in punycode,
 * `xn--mnchen-3ya` for "münchen"), which the school settings accept: its public site and its
 * learning area answer at that subdomain over HTTP like any other school's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import { createLecture, createSection } from '../../src/domain/catalog/curriculum.ts';
import { enroll } from '../../src/domain/learning/enrollments.ts';
import { SchoolSettingsFields } from '../../src/domain/school/school-settings.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { createWorld } from '../support/world.ts';
import { signedIn } from './pages-support.ts';

const SUBDOMAIN = 'xn--mnchen-3ya';
const HTML = { accept: 'text/html' };

describe(`a school at the subdomain ${SUBDOMAIN}`, () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
    await createWorld(t);
    assert.ok(SchoolSettingsFields.shape.subdomain.safeParse(SUBDOMAIN).success, 'a valid subdomain');
    const school = await createSchool(t.runtime.db, { name: 'Schule München', subdomain: SUBDOMAIN });
    const course = await createCourse(t.runtime.db, school.id, {
      slug: 'deutsch-a1',
      title: 'Deutsch A1',
      status: 'published',
      priceAmount: 0,
    });
    const section = await createSection(t.runtime.db, school.id, course.id, { title: 'Start' });
    await createLecture(t.runtime.db, school.id, section.id, {
      title: 'Hallo',
      type: 'text',
      body: 'Hallo!',
    });
    const student = await findUserByEmail(t.runtime.db, 'student@example.com');
    assert.ok(student);
    await enroll(t.runtime.db, school.id, { userId: student.id, courseId: course.id });
  });
  after(() => t.close());

  it('its learning area: My courses and the course, for its student', async () => {
    const browser = await signedIn(t, 'student@example.com');
    const mine = await browser.request(`/schools/${SUBDOMAIN}/learn`);
    const text = await mine.text();
    assert.equal(mine.status, 200, text.slice(0, 2000));
    assert.ok(text.includes('<title>My courses · Schule München · Lectern</title>'), text.slice(0, 500));
    assert.ok(text.includes(`href="/schools/${SUBDOMAIN}/learn/courses/deutsch-a1"`));
    const course = await browser.request(`/schools/${SUBDOMAIN}/learn/courses/deutsch-a1`);
    assert.equal(course.status, 200);
    assert.ok((await course.text()).includes('Deutsch A1'));
  });

  it('its public site', async () => {
    const home = await t.request(`/schools/${SUBDOMAIN}/`, { headers: HTML });
    assert.equal(home.status, 200);
    assert.ok((await home.text()).includes('<title>Home · Schule München · Lectern</title>'));
  });

  it('subdomains the settings refuse are the 404 page, never looked up', async () => {
    const browser = await signedIn(t, 'student@example.com');
    for (const bad of ['-xn--mnchen-3ya', 'xn--mnchen-3ya-', 'XN--MNCHEN-3YA', 'a'.repeat(64)]) {
      const res = await browser.request(`/schools/${bad}/learn`);
      assert.equal(res.status, 404, bad);
      assert.ok((await res.text()).includes('<h1>Page not found</h1>'), bad);
      const site = await t.request(`/schools/${bad}/`, { headers: HTML });
      assert.equal(site.status, 404, bad);
    }
  });
});
