import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeCursor } from '../../src/domain/kernel/pagination.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { api } from '../admin/api.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { createTestClock, DAY } from '../support/clock.ts';
import type { Browser } from '../support/oauth-flow.ts';
import { issueTestToken } from '../support/tokens.ts';
import { addPerson, createWorld, type World } from '../support/world.ts';
import { assertPageHeaders, signedIn } from './pages-support.ts';

/** The page's visible text: tags dropped, whitespace folded (what a person reads). */
const textOf = (body: string) =>
  (/<main[^>]*>([\s\S]*)<\/main>/.exec(body)?.[1] ?? body)
    .replace(/<[^>]+>/g, ' ')
    .replaceAll('&amp;', '&')
    .replace(/\s+/g, ' ');

/** The rows of the entries table. */
const rowsOf = (body: string) =>
  [...body.matchAll(/<tr><td data-label="When">[\s\S]*?<\/tr>/g)].map((m) => m[0]);

/** The href of a link by its words, with HTML's &amp; undone. */
const linkTo = (body: string, words: string) => {
  const match = new RegExp(`<a href="([^"]+)"[^>]*>${words}</a>`).exec(body);
  return match ? match[1].replaceAll('&amp;', '&') : null;
};

describe('/admin/<school>/audit: the audit trail in words', () => {
  let t: TestApp;
  let world: World;
  let school: string;
  let owner: Browser;
  let adminId: string;
  let page: string;
  let watercolour: string;
  let readTrail: ReturnType<typeof api>;
  before(async () => {
    // 23:30 UTC on 1 March is 00:30 on 2 March in Berlin: the page speaks the school's zone.
    t = await createTestApp({}, { clock: createTestClock('2026-03-01T23:30:00.000Z') });
    world = await createWorld(t);
    const db = t.runtime.db;
    const created = await createSchool(db, {
      name: 'Aquarelle Studio',
      subdomain: 'aquarelle',
      locale: 'en-IE',
      timezone: 'Europe/Berlin',
      currency: 'EUR',
    });
    school = created.id;
    page = `/admin/${school}/audit`;
    const ownerId = world.userId('owner@example.com');
    await addRoles(db, school, ownerId, ['owner']);
    adminId = await addPerson(db, school, ['admin'], 'ada@example.com', 'Ada Admin');
    const token = async (userId: string) =>
      (await issueTestToken(t, { userId, schoolId: school, scopes: OPERATOR_SCOPES, audience: 'operator' }))
        .token;
    const asOwner = api(t, await token(ownerId));
    const course = await asOwner('POST', '/api/v1/courses', {
      slug: 'watercolour',
      title: 'Intro to Watercolour',
      price_amount: 4900,
    });
    assert.equal(course.status, 201);
    watercolour = course.body.id;
    assert.equal(
      (await asOwner('PATCH', `/api/v1/courses/${watercolour}`, { price_amount: 5900 })).status,
      200,
    );

    // Two days later Ada adds a course, changes its price 32 times and invites a lecturer.
    t.clock.advance(2 * DAY);
    const asAdmin = api(t, await token(adminId));
    const ts = await asAdmin('POST', '/api/v1/courses', {
      slug: 'typescript',
      title: 'TypeScript',
      price_amount: 1000,
    });
    assert.equal(ts.status, 201);
    for (let i = 1; i <= 32; i++) {
      const r = await asAdmin('PATCH', `/api/v1/courses/${ts.body.id}`, { price_amount: 1000 + i * 100 });
      assert.equal(r.status, 200);
    }
    const invited = await asAdmin('POST', '/api/v1/members', {
      email: 'jane@example.com',
      roles: ['lecturer'],
    });
    assert.equal(invited.status, 201);

    // Another school's events never show here.
    const asOther = api(t, await world.other.token());
    assert.equal(
      (await asOther('POST', '/api/v1/courses', { slug: 'geheim', title: 'Geheimkurs', price_amount: 100 }))
        .status,
      201,
    );
    owner = await signedIn(t, 'owner@example.com');
    readTrail = api(t, await token(ownerId));
  });
  after(() => t.close());

  it('tells each entry in words: when in the school’s zone, who by name and app, what as a sentence', async () => {
    const res = await owner.request(
      `${page}?type=course.created&actor=user%3A${world.userId('owner@example.com')}`,
    );
    assert.equal(res.status, 200);
    assertPageHeaders(res);
    const body = await res.text();
    const rows = rowsOf(body);
    assert.equal(rows.length, 1);
    const row = textOf(rows[0]);
    assert.match(row, /^ 2 Mar 2026, 00:3\d /, 'the time is Berlin’s, the next day');
    assert.match(row, / Olivia Owner owner@example\.com through Test operator client /);
    assert.match(row, / Created the course “Intro to Watercolour” Price: €49\.00 Status: Draft $/);

    const changes = await (await owner.request(`${page}?from=2026-03-02&to=2026-03-02`)).text();
    const texts = rowsOf(changes).map(textOf);
    // Issuing the test tokens connected the app (recorded by Lectern, outside any request).
    for (const grant of texts.splice(2)) {
      assert.match(
        grant,
        / Lectern automatically Olivia Owner connected the app “Test operator client” What it may do \(\d+\) Courses: view and change /,
      );
    }
    assert.deepEqual(
      texts.map((r) => r.replace(/^ 2 Mar 2026, 00:3\d /, '').split(' through Test operator client ')),
      [
        [
          'Olivia Owner owner@example.com',
          'Changed the price of “Intro to Watercolour” from €49.00 to €59.00 ',
        ],
        [
          'Olivia Owner owner@example.com',
          'Created the course “Intro to Watercolour” Price: €49.00 Status: Draft ',
        ],
      ],
      'what happened on 2 March in Berlin (1 March in UTC), newest first',
    );
  });

  it('shows names, never ids, JSON or type names, and another school’s events never', async () => {
    const body = await (await owner.request(page)).text();
    const text = textOf(body);
    assert.match(text, /Invited jane@example\.com as lecturer/);
    assert.match(text, /Ada Admin ada@example\.com through Test operator client/);
    assert.match(text, /Changed the price of “TypeScript” from €41\.00 to €42\.00/);
    assert.doesNotMatch(text, /\b(usr|crs|evt|sch|inv|mem)_[0-9a-z]{26}\b/, 'no ids in what people read');
    assert.doesNotMatch(text, /[{}]|course\.created|price_amount/, 'no JSON, type names or field names');
    assert.doesNotMatch(body, /Geheimkurs/);
    // The filters offer kinds in words, grouped, and the people who acted, by name.
    assert.match(
      body,
      /<optgroup label="Courses"><option value="course\.created">Course created<\/option><option value="course\.updated">Course changed<\/option>/,
    );
    assert.match(
      body,
      /<option value="user:[^"]+">Ada Admin \(ada@example\.com\)<\/option><option value="user:[^"]+">Olivia Owner \(owner@example\.com\)<\/option><option value="system">Lectern \(automatic\)<\/option>/,
    );
    assert.doesNotMatch(body, /Otto Owner/, 'only people who acted at this school are offered');
  });

  it('pages 30+ entries by cursor with the filters kept, and says when nothing matches', async () => {
    const filters = `type=course.updated&actor=user%3A${adminId}`;
    const first = await (await owner.request(`${page}?${filters}`)).text();
    assert.equal(rowsOf(first).length, 25);
    assert.match(textOf(rowsOf(first)[0]), /from €41\.00 to €42\.00/, 'newest first');
    assert.equal(linkTo(first, 'Newest entries'), null);
    const older = linkTo(first, 'Older entries');
    assert.ok(older);
    assert.match(
      older,
      new RegExp(`^/admin/${school}/audit\\?type=course\\.updated&actor=user%3A${adminId}&cursor=`),
    );
    const second = await owner.request(older);
    assert.equal(second.status, 200);
    const body = await second.text();
    const rows = rowsOf(body).map(textOf);
    assert.equal(rows.length, 7);
    assert.match(rows[6], /Changed the price of “TypeScript” from €10\.00 to €11\.00/);
    assert.equal(linkTo(body, 'Older entries'), null);
    assert.equal(
      linkTo(body, 'Newest entries'),
      `/admin/${school}/audit?type=course.updated&actor=user%3A${adminId}`,
    );
    // The admin API's read lists the same entries for the same filters.
    const apiFirst = await readTrail(
      'GET',
      `/api/v1/audit-events?type=course.updated&actor_id=${adminId}&limit=25`,
    );
    assert.equal(apiFirst.status, 200, JSON.stringify(apiFirst.body));
    assert.equal(apiFirst.body.data.length, 25);
    const apiSecond = await readTrail(
      'GET',
      `/api/v1/audit-events?type=course.updated&actor_id=${adminId}&limit=25&cursor=${apiFirst.body.next_cursor}`,
    );
    assert.equal(apiSecond.body.data.length, 7);
    assert.equal(apiSecond.body.next_cursor, null);
    assert.ok(older.endsWith(`&cursor=${apiFirst.body.next_cursor}`), 'the page’s cursor is the API’s');

    const none = await owner.request(`${page}?from=2026-03-01&to=2026-03-01`);
    assert.equal(none.status, 200);
    assert.match(await none.text(), /<p id="no-events">No entries match these filters\.<\/p>/);
    // Lectern itself, outside any request: the test's setup added the people and issued the tokens.
    const system = rowsOf(await (await owner.request(`${page}?actor=system`)).text()).map(textOf);
    assert.equal(system.length, 5, system.join('\n'));
    for (const row of system) {
      assert.match(
        row,
        / Lectern automatically (Olivia Owner|Ada Admin)( \(\S+\) joined the school| connected the app)/,
      );
    }
  });

  it('answers bad filters with the page and a message beside the field, never a 500', async () => {
    const bad = await owner.request(`${page}?type=%3Cscript%3E&from=yesterday&to=2026-02-30`);
    assert.equal(bad.status, 400);
    const body = await bad.text();
    assert.doesNotMatch(body, /<script>/);
    assert.match(body, /<p class="field-error" id="type-error">Choose a kind of change from the list\.<\/p>/);
    assert.match(
      body,
      /<p class="field-error" id="from-error">Enter the first day as a date, e\.g\. 2026-03-01\.<\/p>/,
    );
    assert.match(
      body,
      /<p class="field-error" id="to-error">Enter the last day as a date, e\.g\. 2026-03-31\.<\/p>/,
    );
    assert.match(body, /<select id="type" name="type" aria-describedby="type-error" aria-invalid="true">/);
    assert.doesNotMatch(
      body,
      /id="no-events"|Matching entries/,
      'no list for filters that could not be used',
    );

    const backwards = await (await owner.request(`${page}?from=2026-03-05&to=2026-03-01`)).text();
    assert.match(backwards, /The last day cannot be before the first day\./);

    // Another school's person is no one here: the same answer as a made-up value.
    const otto = await owner.request(`${page}?actor=user%3A${world.userId('other-owner@example.com')}`);
    assert.equal(otto.status, 400);
    assert.match(await otto.text(), /id="actor-error">Choose a person from the list\./);
    const madeUp = await owner.request(`${page}?actor=somebody`);
    assert.equal(madeUp.status, 400);

    for (const cursor of ['garbage', encodeCursor('evt_00000000000000000000000000')]) {
      const res = await owner.request(`${page}?type=course.updated&cursor=${cursor}`);
      assert.equal(res.status, 400, cursor);
      const text = await res.text();
      assert.match(
        text,
        /That page of the audit trail does not exist\. Start again from the newest entries\./,
      );
      assert.doesNotMatch(text, /Nothing has happened|id="no-events"/);
      assert.equal(linkTo(text, 'Newest entries'), `/admin/${school}/audit?type=course.updated`);
    }
    // A cursor of another school's list is not a page of this one.
    const otherEvent = await t.runtime.db
      .selectFrom('domain_events')
      .select('id')
      .where('school_id', '=', world.other.schoolId)
      .executeTakeFirstOrThrow();
    const foreign = await owner.request(`${page}?cursor=${encodeCursor(otherEvent.id)}`);
    assert.equal(foreign.status, 400);
    assert.doesNotMatch(await foreign.text(), /Geheimkurs/);
  });

  it('is for the school’s owners and admins only', async () => {
    const student = await signedIn(t, 'student@example.com');
    assert.equal((await student.request(page)).status, 403);
    assert.equal((await owner.request(`/admin/${world.other.schoolId}/audit`)).status, 403);
    const anonymous = await t.request(page);
    assert.equal(anonymous.status, 302);
    assert.equal(anonymous.headers.get('location'), `/login?return_to=${encodeURIComponent(page)}`);
  });
});
