/**
 * The learning area's lecture files (checked on every request), quizzes, uploaded videos and the
 * member's events, over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { updateLecture } from '../../src/domain/catalog/curriculum.ts';
import { recordOrder } from '../../src/domain/commerce/orders.ts';
import { registerForEvent } from '../../src/domain/community/event-registrations.ts';
import { createEvent } from '../../src/domain/community/events.ts';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { localFileStore } from '../../src/domain/school/file-store.ts';
import { storeFile } from '../../src/domain/school/storage.ts';
import { isoIn } from '../../src/store/time.ts';
import { gql } from '../account/graphql.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { Browser } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { csrfOf, locationOf, signedIn } from './pages-support.ts';

const LEARN = '/schools/demo/learn';
const TS = `${LEARN}/courses/${DEMO.courses.typescript}`;
const PDF = new TextEncoder().encode('%PDF-1.4\n% a tiny cheat sheet\n');
const MP4 = new Uint8Array([
  0,
  0,
  0,
  0x18,
  ...new TextEncoder().encode('ftypmp42'),
  ...new Array(64).fill(7),
]);

const QUIZ = `Answer both.

1. Which type takes a type parameter?
   - [ ] string
   - [x] Array<T>
   - [ ] number

2. What does "strict" turn on?
   - [x] Every strict check
   - [ ] Nothing`;

describe('learning area: files, quizzes and events', () => {
  let t: TestApp;
  let world: World;
  let student: Browser;
  let byTitle: Map<string, string>;

  const fileUrl = (title: string) => `${LEARN}/files/${byTitle.get(title)}`;

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    student = await signedIn(t, 'student@example.com');
    const db = t.runtime.db;
    const rows = await db
      .selectFrom('lectures')
      .select(['id', 'title'])
      .where('school_id', '=', world.demo.schoolId)
      .execute();
    byTitle = new Map(rows.map((r) => [r.title, r.id]));
    const store = (filename: string, contentType: string, bytes: Uint8Array) =>
      storeFile(db, localFileStore(t.config.filesDir), t.config.uploadLimitBytes, world.demo.schoolId, {
        bytes,
        contentType,
        filename,
      });
    const pdf = await store('cheat-sheet.pdf', 'application/pdf', PDF);
    const video = await store('welcome.mp4', 'video/mp4', MP4);
    await updateLecture(db, world.demo.schoolId, byTitle.get('Cheat sheet (PDF)')!, { fileId: pdf.id });
    // The free preview of TypeScript plays from an uploaded file.
    await updateLecture(db, world.demo.schoolId, byTitle.get('Welcome and setup')!, { fileId: video.id });
    await updateLecture(db, world.demo.schoolId, byTitle.get('Check your understanding')!, { body: QUIZ });
  });
  after(() => t.close());

  it('a file lecture offers "Download <name>" through the checked route', async () => {
    const res = await student.request(`${TS}/lectures/${byTitle.get('Cheat sheet (PDF)')}`);
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.ok(
      page.includes(
        `<a class="button" href="${fileUrl('Cheat sheet (PDF)')}" download="cheat-sheet.pdf">Download cheat-sheet.pdf</a> <span class="muted">(${PDF.byteLength} bytes)</span>`,
      ),
    );
  });

  it('an enrolled student gets the file, private and never sniffed', async () => {
    const res = await student.request(fileUrl('Cheat sheet (PDF)'));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.equal(
      res.headers.get('content-disposition'),
      `attachment; filename="cheat-sheet.pdf"; filename*=UTF-8''cheat-sheet.pdf`,
    );
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'private, no-store');
    assert.equal(res.headers.get('content-security-policy'), "default-src 'none'; sandbox");
    assert.equal(res.headers.get('content-length'), String(PDF.length));
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), PDF);
  });

  it('a byte range of the file is served for seeking (206), a range past the end is 416', async () => {
    const part = await student.request(fileUrl('Cheat sheet (PDF)'), { headers: { range: 'bytes=0-3' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 0-3/${PDF.length}`);
    assert.equal(new TextDecoder().decode(await part.arrayBuffer()), '%PDF');
    const beyond = await student.request(fileUrl('Cheat sheet (PDF)'), { headers: { range: 'bytes=9999-' } });
    assert.equal(beyond.status, 416);
    assert.equal(beyond.headers.get('content-range'), `bytes */${PDF.length}`);
  });

  it('the course lecturer and the school owner get the file; another member of the school does not', async () => {
    for (const email of ['lecturer@example.com', 'owner@example.com']) {
      const res = await (await signedIn(t, email)).request(fileUrl('Cheat sheet (PDF)'));
      assert.equal(res.status, 200, email);
      assert.equal(res.headers.get('content-type'), 'application/pdf');
    }
    const email = 'new-student@example.com';
    const userId = await world.demo.person(['student'], email);
    await t.runtime.db
      .updateTable('users')
      .set({
        password_hash: (await t.runtime.db
          .selectFrom('users')
          .select('password_hash')
          .where('id', '=', world.demo.studentId)
          .executeTakeFirstOrThrow())!.password_hash,
      })
      .where('id', '=', userId)
      .execute();
    const other = await signedIn(t, email);
    const res = await other.request(fileUrl('Cheat sheet (PDF)'));
    assert.equal(res.status, 403);
    const page = await res.text();
    assert.match(page, /<h1>You&#39;re not enrolled in this course<\/h1>/);
    assert.match(
      page,
      /<a href="\/schools\/demo\/courses\/getting-started-with-typescript">See Getting Started with TypeScript<\/a>/,
    );
    assert.doesNotMatch(page, /%PDF/);
  });

  it('a student of another school gets the 404 page; signed out goes to sign-in', async () => {
    const other = await signedIn(t, 'other-student@example.com');
    const res = await other.request(fileUrl('Cheat sheet (PDF)'));
    assert.equal(res.status, 404);
    assert.match(await res.text(), /<h1>Page not found<\/h1>/);
    // Their own school's address with a Demo Academy lecture id: not there either.
    const crossed = await other.request(`/schools/other/learn/files/${byTitle.get('Cheat sheet (PDF)')}`);
    assert.equal(crossed.status, 404);
    const anonymous = await new Browser(t).request(fileUrl('Cheat sheet (PDF)'));
    assert.equal(anonymous.status, 302);
    assert.equal(
      locationOf(anonymous),
      `/login?return_to=${encodeURIComponent(fileUrl('Cheat sheet (PDF)'))}`,
    );
  });

  it('a free-preview lecture of a published course: its file reaches anyone, inline for a video', async () => {
    const res = await new Browser(t).request(fileUrl('Welcome and setup'));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'video/mp4');
    assert.equal(
      res.headers.get('content-disposition'),
      `inline; filename="welcome.mp4"; filename*=UTF-8''welcome.mp4`,
    );
    assert.equal(res.headers.get('cache-control'), 'private, no-store');
  });

  it('a video from an uploaded file plays through the file route (media from this origin)', async () => {
    const res = await student.request(`${TS}/lectures/${byTitle.get('Welcome and setup')}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-security-policy') ?? '', /media-src 'self'/);
    const page = await res.text();
    assert.ok(
      page.includes(
        `<video controls preload="metadata" src="${fileUrl('Welcome and setup')}" data-start="0"`,
      ),
    );
  });

  it('a video URL that is not a media file is a link, never a frame', async () => {
    const id = byTitle.get('Joining tables')!;
    await updateLecture(t.runtime.db, world.demo.schoolId, id, {
      videoUrl: 'https://www.youtube.com/watch?v=abc',
    });
    const res = await student.request(`${LEARN}/courses/${DEMO.courses.sql}/lectures/${id}`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.doesNotMatch(csp, /media-src|frame-src|script-src/);
    const page = await res.text();
    assert.match(
      page,
      /<a href="https:\/\/www\.youtube\.com\/watch\?v=abc" rel="noopener noreferrer">Watch the video on www\.youtube\.com<\/a>/,
    );
    assert.doesNotMatch(page, /<video|<iframe/);
  });

  it('a quiz shows its questions without the answers; wrong answers are marked, right ones complete it', async () => {
    const quiz = `${TS}/lectures/${byTitle.get('Check your understanding')}`;
    const page = await (await student.request(quiz)).text();
    assert.match(page, /<legend>1\. Which type takes a type parameter\?<\/legend>/);
    assert.match(
      page,
      /<label class="check"><input type="radio" name="q0" value="1"> Array&lt;T&gt;<\/label>/,
    );
    assert.match(page, /<button class="primary" type="submit">Check answers<\/button>/);
    assert.doesNotMatch(page, /Mark complete/, 'a quiz with questions completes by passing');
    assert.doesNotMatch(page, /\[x\]|Answer both/, 'the key never reaches the page');

    const csrf = await csrfOf(student, quiz);
    const wrong = await student.postForm(`${quiz}/quiz`, { csrf_token: csrf, q0: '0', q1: '0' });
    assert.equal(wrong.status, 303);
    assert.equal(locationOf(wrong), `${quiz}?checked=1&q0=0&q1=0`);
    const graded = await (await student.request(locationOf(wrong))).text();
    assert.match(graded, /1 of 2 answers are right\. Change the others and check again\./);
    assert.match(graded, /<p id="q0-status" class="field-error"><strong>Not right<\/strong><\/p>/);
    assert.match(graded, /<p id="q1-status" class="field-ok"><strong>Right<\/strong><\/p>/);
    assert.match(graded, /name="q0" value="0" checked>/);

    const token = await world.demo.token(['openid', 'account:read'], 'member', world.demo.studentId);
    const progress = async () =>
      (
        await gql(t, token, '{ viewer { enrolledCourses(first: 10) { nodes { slug progressPercent } } } }')
      ).body.data.viewer.enrolledCourses.nodes.find(
        (n: { slug: string }) => n.slug === DEMO.courses.typescript,
      ).progressPercent;
    assert.equal(await progress(), 50, 'a failed attempt completes nothing');

    const right = await student.postForm(`${quiz}/quiz`, { csrf_token: csrf, q0: '1', q1: '0' });
    assert.equal(locationOf(right), `${quiz}?checked=1&q0=1&q1=0`);
    const passed = await (await student.request(locationOf(right))).text();
    assert.match(passed, /All 2 answers are right\. This lecture is complete\./);
    assert.equal(await progress(), 66);

    const hostile = await student.postForm(`${quiz}/quiz`, { csrf_token: csrf, q0: '-1', q1: '999999' });
    assert.equal(hostile.status, 303);
    assert.equal(locationOf(hostile), `${quiz}?checked=1`);
    const none = await student.request(`${quiz}?checked=1&q0=${'9'.repeat(400)}`);
    assert.equal(none.status, 200);
    assert.match(await none.text(), /0 of 2 answers are right/);
  });

  it('events: register and cancel through the member functions; a full event says so', async () => {
    const db = t.runtime.db;
    const full = await createEvent(db, world.demo.schoolId, {
      title: 'Small study group',
      startsAt: isoIn(3 * 86400),
      endsAt: isoIn(3 * 86400 + 3600),
      capacity: 1,
      location: 'Library',
    });
    await registerForEvent(db, world.demo.schoolId, full.id, world.demo.ownerId);
    const workshop = await db
      .selectFrom('events')
      .select('id')
      .where('title', '=', DEMO.events.workshop)
      .executeTakeFirstOrThrow();

    const page = await (await student.request(`${LEARN}/events`)).text();
    assert.match(page, /<h2 id="event-[^"]+">Small study group<\/h2>/);
    assert.match(page, /This event is full\./);
    assert.doesNotMatch(
      page,
      new RegExp(`/events/${full.id}/register`),
      'no Register button on a full event',
    );
    assert.doesNotMatch(page, /Kick-off webinar/, 'past events are not listed');

    const csrf = await csrfOf(student, `${LEARN}/events`);
    const refused = await student.postForm(`${LEARN}/events/${full.id}/register`, { csrf_token: csrf });
    assert.equal(refused.status, 303);
    assert.equal(locationOf(refused), `${LEARN}/events?error=event_full`);
    assert.match(
      await (await student.request(locationOf(refused))).text(),
      /role="alert"><p>This event is full\.<\/p>/,
    );

    const registered = await student.postForm(`${LEARN}/events/${workshop.id}/register`, {
      csrf_token: csrf,
    });
    assert.equal(locationOf(registered), `${LEARN}/events?done=registered`);
    const token = await world.demo.token(['openid', 'account:read'], 'member', world.demo.studentId);
    const seats = async () =>
      (
        await gql(
          t,
          token,
          '{ viewer { eventRegistrations(first: 10) { nodes { status event { title } } } } }',
        )
      ).body.data.viewer.eventRegistrations.nodes;
    assert.deepEqual(
      (await seats()).find((r: { event: { title: string } }) => r.event.title === DEMO.events.workshop),
      { status: 'REGISTERED', event: { title: DEMO.events.workshop } },
    );
    const canceled = await student.postForm(`${LEARN}/events/${workshop.id}/cancel`, { csrf_token: csrf });
    assert.equal(locationOf(canceled), `${LEARN}/events?done=canceled`);
    assert.deepEqual(
      (await seats()).find((r: { event: { title: string } }) => r.event.title === DEMO.events.workshop),
      { status: 'CANCELED', event: { title: DEMO.events.workshop } },
    );
    const again = await student.postForm(`${LEARN}/events/${workshop.id}/cancel`, { csrf_token: csrf });
    assert.equal(locationOf(again), `${LEARN}/events?error=not_registered`);

    const forged = await student.postForm(`${LEARN}/events/${workshop.id}/register`, {});
    assert.equal(forged.status, 403);
    for (const id of ['evt_00000000000000000000000000', 'nonsense']) {
      const res = await student.postForm(`${LEARN}/events/${id}/register`, { csrf_token: csrf });
      assert.equal(res.status, 404, id);
    }
  });

  it("orders and subscription in the school's currency, dates and words", async () => {
    const orders = await (await student.request(`${LEARN}/orders`)).text();
    assert.match(orders, /<div class="table-wrap" role="region" aria-label="Your orders" tabindex="0">/);
    assert.match(
      orders,
      /<td data-label="Amount">\$26\.10<br><span class="muted">\$2\.90 off with WELCOME10<\/span><\/td>/,
    );
    assert.match(orders, /<td data-label="Status">Refunded<\/td>/);
    assert.match(orders, /<td data-label="Date"><time datetime="[^"]+">\w+ \d{1,2}, \d{4}<\/time><\/td>/);
    const subscription = await (await student.request(`${LEARN}/subscription`)).text();
    assert.match(subscription, /<h2>All Access Monthly<\/h2>/);
    assert.match(subscription, /<dt>Price<\/dt><dd>\$19\.00 a month<\/dd>/);
    assert.match(subscription, /<dt>Status<\/dt><dd>Active<\/dd>/);
    assert.match(
      subscription,
      /<dt>Renews on<\/dt><dd><time datetime="[^"]+">\w+ \d{1,2}, \d{4}<\/time><\/dd>/,
    );
    // Other School: euros and dates in German, in Berlin's time zone.
    const other = await signedIn(t, 'other-student@example.com');
    const none = await other.request('/schools/other/learn/orders');
    assert.match(await none.text(), /You have no orders at Other School\./);
    await recordOrder(t.runtime.db, world.other.schoolId, {
      userId: world.other.studentId,
      currency: 'EUR',
      items: [
        {
          productType: 'course',
          productId: world.other.courseIds.other,
          title: 'Einführung in Python',
          unitAmount: 3900,
        },
      ],
      createdAt: '2026-03-02T23:30:00.000Z',
    });
    const res = await other.request('/schools/other/learn/orders');
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.match(
      page,
      /<td data-label="Date"><time datetime="2026-03-02T23:30:00.000Z">3\. März 2026<\/time><\/td>/,
    );
    assert.match(page, /<td data-label="Amount">39,00\u00a0€<\/td>/);
  });
});
