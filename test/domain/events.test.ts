import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  cancelRegistration,
  countRegistrations,
  getRegistration,
  listEventRegistrations,
  listUserRegistrations,
  registerForEvent,
} from '../../src/domain/community/event-registrations.ts';
import {
  countEvents,
  createEvent,
  deleteEvent,
  getEvent,
  listEvents,
  listUpcomingPublicEvents,
  updateEvent,
} from '../../src/domain/community/events.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { isoIn } from '../../src/store/time.ts';
import { createDomainFixture, type DomainFixture } from '../support/world-domain.ts';
import { problemOf } from './problem-of.ts';

describe('events and registrations repository contract', () => {
  let f: DomainFixture;
  before(async () => {
    f = await createDomainFixture();
  });
  after(() => f.close());

  it('creates, reads, updates and deletes an event; checks its window', async () => {
    const e = await createEvent(f.db, f.schoolA, {
      title: 'Live Q&A',
      startsAt: '2030-01-01T10:00:00Z',
      endsAt: '2030-01-01T11:00:00+00:00',
      capacity: 10,
      onlineUrl: 'https://meet.example.com/qa',
    });
    assert.match(e.id, /^evt_/);
    assert.equal(e.startsAt, '2030-01-01T10:00:00.000Z');
    assert.equal(e.endsAt, '2030-01-01T11:00:00.000Z');
    assert.equal(e.visibility, 'public');
    assert.equal(e.status, 'scheduled');
    assert.equal(e.registeredCount, 0);
    assert.equal(e.spotsLeft, 10);
    const p = await problemOf(
      createEvent(f.db, f.schoolA, {
        title: 'x',
        startsAt: '2030-01-01T10:00:00Z',
        endsAt: '2030-01-01T09:00:00Z',
      }),
    );
    assert.deepEqual(p.errors, [{ field: 'endsAt', message: 'must be after startsAt' }]);
    assert.equal(
      (await problemOf(createEvent(f.db, f.schoolA, { title: 'x', startsAt: 'soon', endsAt: 'later' })))
        .status,
      422,
    );
    const u = await updateEvent(f.db, f.schoolA, e.id, { location: 'Room 1', capacity: null });
    assert.equal(u.location, 'Room 1');
    assert.equal(u.capacity, null);
    assert.equal(u.spotsLeft, null);
    assert.equal((await problemOf(getEvent(f.db, f.schoolB, e.id))).code, 'not_found');
    await deleteEvent(f.db, f.schoolA, e.id);
    assert.equal((await problemOf(getEvent(f.db, f.schoolA, e.id))).status, 404);
  });

  it('registers up to capacity, then 409 event_full; a repeat is idempotent', async () => {
    const e = await createEvent(f.db, f.schoolA, {
      title: 'Tiny',
      startsAt: isoIn(3600),
      endsAt: isoIn(7200),
      capacity: 1,
    });
    const first = await registerForEvent(f.db, f.schoolA, e.id, f.alice);
    assert.equal(first.created, true);
    assert.equal(first.registration.status, 'registered');
    assert.deepEqual(first.registration.user, { id: f.alice, name: 'Alice', email: 'alice@example.com' });
    const again = await registerForEvent(f.db, f.schoolA, e.id, f.alice);
    assert.equal(again.created, false);
    assert.equal(again.registration.id, first.registration.id);
    assert.deepEqual(await problemOf(registerForEvent(f.db, f.schoolA, e.id, f.bob)), {
      status: 409,
      code: 'event_full',
      errors: undefined,
    });
    assert.equal((await getEvent(f.db, f.schoolA, e.id)).spotsLeft, 0);
    // Canceling frees the seat; capacity cannot then drop below registrations.
    const canceled = await cancelRegistration(f.db, f.schoolA, first.registration.id);
    assert.equal(canceled.status, 'canceled');
    assert.ok(canceled.canceledAt);
    assert.equal((await cancelRegistration(f.db, f.schoolA, first.registration.id)).status, 'canceled');
    const bob = await registerForEvent(f.db, f.schoolA, e.id, f.bob);
    assert.equal(bob.created, true);
    assert.equal((await problemOf(registerForEvent(f.db, f.schoolA, e.id, f.alice))).code, 'event_full');
    await updateEvent(f.db, f.schoolA, e.id, { capacity: 2 });
    const back = await registerForEvent(f.db, f.schoolA, e.id, f.alice);
    assert.equal(back.registration.id, first.registration.id);
    assert.equal(back.registration.status, 'registered');
    assert.equal(back.registration.canceledAt, null);
    assert.equal((await problemOf(updateEvent(f.db, f.schoolA, e.id, { capacity: 1 }))).status, 422);
  });

  it('holds capacity under concurrent registrations', async () => {
    const e = await createEvent(f.db, f.schoolA, {
      title: 'Rush',
      startsAt: isoIn(3600),
      endsAt: isoIn(7200),
      capacity: 3,
    });
    const people: string[] = [];
    for (let i = 0; i < 8; i++) {
      const u = await createUser(f.db, { email: `rush${i}@example.com`, name: `R${i}`, passwordHash: null });
      await addRoles(f.db, f.schoolA, u.id, ['student']);
      people.push(u.id);
    }
    const results = await Promise.allSettled(people.map((p) => registerForEvent(f.db, f.schoolA, e.id, p)));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3);
    for (const r of results) {
      if (r.status === 'rejected') assert.equal((r.reason as { code: string }).code, 'event_full');
    }
    assert.equal((await getEvent(f.db, f.schoolA, e.id)).registeredCount, 3);
  });

  it('refuses canceled, ended, other-school and non-member registrations', async () => {
    const canceled = await createEvent(f.db, f.schoolA, {
      title: 'Off',
      startsAt: isoIn(3600),
      endsAt: isoIn(7200),
      status: 'canceled',
    });
    assert.equal(
      (await problemOf(registerForEvent(f.db, f.schoolA, canceled.id, f.alice))).code,
      'event_canceled',
    );
    const past = await createEvent(f.db, f.schoolA, {
      title: 'Past',
      startsAt: isoIn(-7200),
      endsAt: isoIn(-3600),
    });
    assert.equal((await problemOf(registerForEvent(f.db, f.schoolA, past.id, f.alice))).code, 'event_ended');
    assert.equal((await problemOf(registerForEvent(f.db, f.schoolB, past.id, f.carol))).code, 'not_found');
    // Carol belongs to school B only.
    assert.equal((await problemOf(registerForEvent(f.db, f.schoolA, past.id, f.carol))).status, 404);
  });

  it('lists registrations of an event and of a user, and upcoming public events', async () => {
    const members = await createEvent(f.db, f.schoolA, {
      title: 'Members only',
      startsAt: isoIn(1800),
      endsAt: isoIn(3600),
      visibility: 'members',
    });
    const open = await createEvent(f.db, f.schoolA, {
      title: 'Open day',
      startsAt: isoIn(600),
      endsAt: isoIn(4000),
    });
    const theirs = await createEvent(f.db, f.schoolB, {
      title: 'B event',
      startsAt: isoIn(600),
      endsAt: isoIn(4000),
    });
    await registerForEvent(f.db, f.schoolA, members.id, f.alice);
    await registerForEvent(f.db, f.schoolA, open.id, f.alice);
    await registerForEvent(f.db, f.schoolA, open.id, f.bob);
    await registerForEvent(f.db, f.schoolB, theirs.id, f.carol);
    const ofOpen = await listEventRegistrations(f.db, f.schoolA, open.id);
    assert.deepEqual(ofOpen.data.map((r) => r.userId).sort(), [f.alice, f.bob].sort());
    assert.equal(await countRegistrations(f.db, f.schoolA, { eventId: open.id }), 2);
    assert.equal((await problemOf(listEventRegistrations(f.db, f.schoolA, theirs.id))).status, 404);
    const alices = await listUserRegistrations(
      f.db,
      f.schoolA,
      f.alice,
      {},
      { upcomingOnly: true, activeOnly: true },
    );
    assert.ok(alices.data.some((r) => r.eventId === members.id));
    assert.ok(alices.data.every((r) => r.schoolId === f.schoolA && r.status !== 'canceled'));
    assert.equal((await listUserRegistrations(f.db, f.schoolA, f.carol)).data.length, 0);
    const reg = ofOpen.data[0];
    assert.equal((await problemOf(getRegistration(f.db, f.schoolB, reg.id))).status, 404);

    const upcoming = await listUpcomingPublicEvents(f.db, f.schoolA);
    const titles = upcoming.data.map((e) => e.title);
    assert.ok(titles.includes('Open day'));
    assert.ok(!titles.includes('Members only'));
    assert.ok(!titles.includes('Past'));
    assert.ok(!titles.includes('Off'));
    assert.ok(!titles.includes('B event'));
    const starts = upcoming.data.map((e) => e.startsAt);
    assert.deepEqual(starts, [...starts].sort());
    assert.equal(titles[0], 'Open day');
    // Paging in start order with id cursors.
    const all = await listEvents(f.db, f.schoolA, {}, { limit: 100 });
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listEvents>> = await listEvents(
        f.db,
        f.schoolA,
        {},
        { limit: 2, cursor },
      );
      walked.push(...page.data.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(
      walked,
      all.data.map((e) => e.id),
    );
    assert.equal(await countEvents(f.db, f.schoolA), all.data.length);
    assert.equal((await problemOf(listEvents(f.db, f.schoolA, { endsAfter: 'yesterday' }))).status, 422);
  });
});
