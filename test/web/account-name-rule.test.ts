import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { gql } from '../account/graphql.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { issueTestToken } from '../support/tokens.ts';
import { locationOf, signedIn, submit } from './pages-support.ts';

// One rule for a person's name (domain/school/person-name.ts): the settings page and the Account
// API's updateViewerName accept and refuse the same names, each in its own words.
const CASES: ReadonlyArray<{ name: string; stored?: string; page?: string; api?: string }> = [
  { name: '  Zoë Q. Student  ', stored: 'Zoë Q. Student' },
  { name: 'y'.repeat(200), stored: 'y'.repeat(200) },
  { name: ' \t ', page: 'Enter your name.', api: 'must be a non-empty string of at most 200 characters' },
  {
    name: 'z'.repeat(201),
    page: 'Enter a name of at most 200 characters.',
    api: 'must be a non-empty string of at most 200 characters',
  },
  {
    name: 'Mal\u0000lory',
    page: 'A name cannot contain control or text-direction characters.',
    api: 'must not contain control or text-direction characters',
  },
  {
    name: 'evil\u202Egnp.exe',
    page: 'A name cannot contain control or text-direction characters.',
    api: 'must not contain control or text-direction characters',
  },
  {
    name: 'line\nbreak',
    page: 'A name cannot contain control or text-direction characters.',
    api: 'must not contain control or text-direction characters',
  },
];

describe('renaming a person: the page and the Account API ask the same domain rule', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await createTestApp();
    await seedDemoData(t.runtime.db);
    const student = await findUserByEmail(t.runtime.db, 'student@example.com');
    assert.ok(student);
    const membership = await t.runtime.db
      .selectFrom('memberships')
      .select('school_id')
      .where('user_id', '=', student.id)
      .executeTakeFirstOrThrow();
    token = (
      await issueTestToken(t, {
        userId: student.id,
        schoolId: membership.school_id,
        scopes: ['openid', 'account:read', 'account:write'],
        audience: 'member',
      })
    ).token;
  });
  after(() => t.close());

  const storedName = async () => (await findUserByEmail(t.runtime.db, 'student@example.com'))?.name;

  for (const one of CASES) {
    it(`${one.stored ? 'accepts' : 'refuses'} ${JSON.stringify(one.name.slice(0, 24))} on both surfaces`, async () => {
      await t.runtime.db
        .updateTable('users')
        .set({ name: 'Before' })
        .where('email', '=', 'student@example.com')
        .execute();
      const browser = await signedIn(t, 'student@example.com');
      const page = await submit(browser, '/account/settings', '/account/name', { name: one.name });
      if (one.stored) {
        assert.equal(page.status, 303);
        assert.equal(locationOf(page), '/account/settings?done=name');
        assert.equal(await storedName(), one.stored);
      } else {
        assert.equal(page.status, 400);
        const html = await page.text();
        assert.ok(html.includes(`<p class="field-error" id="name-error">${one.page}`), one.page);
        assert.equal(await storedName(), 'Before');
      }

      await t.runtime.db
        .updateTable('users')
        .set({ name: 'Before' })
        .where('email', '=', 'student@example.com')
        .execute();
      const api = await gql(t, token, 'mutation($n: String!) { updateViewerName(name: $n) { name } }', {
        n: one.name,
      });
      assert.equal(api.status, 200);
      if (one.stored) {
        assert.deepEqual(api.body, { data: { updateViewerName: { name: one.stored } } });
        assert.equal(await storedName(), one.stored);
      } else {
        assert.deepEqual(api.body.data, { updateViewerName: null });
        assert.deepEqual(api.body.errors?.[0].extensions, {
          code: 'BAD_USER_INPUT',
          fields: [{ field: 'name', message: one.api }],
        });
        assert.equal(await storedName(), 'Before');
      }
    });
  }
});
