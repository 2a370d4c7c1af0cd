import { createCourse } from '../../src/domain/catalog/courses.ts';
import { createLecture, createSection } from '../../src/domain/catalog/curriculum.ts';
import { createMembershipPlan } from '../../src/domain/commerce/membership-plans.ts';
import { recordOrder } from '../../src/domain/commerce/orders.ts';
import { createSubscription } from '../../src/domain/commerce/subscriptions.ts';
import { registerForEvent } from '../../src/domain/community/event-registrations.ts';
import { createEvent } from '../../src/domain/community/events.ts';
import { enroll } from '../../src/domain/learning/enrollments.ts';
import { recordLectureProgress } from '../../src/domain/learning/record-progress.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { isoIn } from '../../src/store/time.ts';
import type { TestApp } from './app.ts';
import { DAY } from './clock.ts';
import { issueTestToken } from './tokens.ts';

/** Two schools; one student in both, a classmate in A, with courses, orders, events, a subscription. */
export interface AccountFixture {
  schoolA: string;
  schoolB: string;
  student: string;
  classmate: string;
  courses: { lifetime: string; expiring: string; expired: string; other: string };
  lectures: { first: string; second: string; preview: string; expired: string; classmateOnly: string };
  enrollments: { lifetime: string; expiring: string; expired: string; inB: string };
  events: { full: string; open: string; canceled: string; past: string; inB: string };
  ordersA: string[];
  subscription: string;
  /** A member token of the student at school A with account:read and account:write. */
  token(scopes?: string[], school?: 'A' | 'B'): Promise<string>;
}

/**
 * The Account API's scene, built through the domain functions (the same rules as production):
 * two schools of its own, whose enrollments, orders and events cover every state the member
 * view distinguishes (lifetime, expiring, expired; full, open, canceled, past).
 */
export async function seedAccountFixture(t: TestApp): Promise<AccountFixture> {
  const db = t.runtime.db;
  const a = await createSchool(db, { name: 'Alpha Academy', subdomain: 'alpha', currency: 'USD' });
  const b = await createSchool(db, { name: 'Beta School', subdomain: 'beta', currency: 'EUR' });
  const student = await createUser(db, { email: 'sam@example.com', name: 'Sam Student', passwordHash: null });
  const classmate = await createUser(db, { email: 'cleo@example.com', name: 'Cleo', passwordHash: null });
  await addRoles(db, a.id, student.id, ['student']);
  await addRoles(db, b.id, student.id, ['student']);
  await addRoles(db, a.id, classmate.id, ['student']);

  const course = async (schoolId: string, slug: string, title: string) =>
    (await createCourse(db, schoolId, { slug, title, description: `About ${title}`, status: 'published' }))
      .id;
  const lifetime = await course(a.id, 'intro-to-ink', 'Intro to Ink');
  const expiring = await course(a.id, 'paper-folding', 'Paper Folding');
  const expired = await course(a.id, 'old-course', 'Old Course');
  const classmateCourse = await course(a.id, 'classmate-only', 'Classmate Only');
  const other = await course(b.id, 'beta-course', 'Beta Course');

  const s1 = await createSection(db, a.id, lifetime, { title: 'Basics' });
  const s2 = await createSection(db, a.id, lifetime, { title: 'Practice' });
  const first = await createLecture(db, a.id, s1.id, {
    title: 'Welcome',
    type: 'video',
    durationSeconds: 300,
    videoUrl: 'https://video.example.com/welcome.mp4',
  });
  const second = await createLecture(db, a.id, s1.id, {
    title: 'Tools',
    type: 'text',
    body: 'Pens and nibs.',
  });
  await createLecture(db, a.id, s2.id, { title: 'Quiz', type: 'quiz' });
  const exSection = await createSection(db, a.id, expired, { title: 'Archive' });
  const preview = await createLecture(db, a.id, exSection.id, {
    title: 'Free taste',
    type: 'text',
    body: 'Free for all.',
    isFreePreview: true,
  });
  const expiredLecture = await createLecture(db, a.id, exSection.id, {
    title: 'Paid part',
    type: 'text',
    body: 'Members only.',
  });
  const cmSection = await createSection(db, a.id, classmateCourse, { title: 'Only hers' });
  const classmateOnly = await createLecture(db, a.id, cmSection.id, { title: 'Hidden', type: 'text' });

  // Ids are monotonic (src/crypto/ids.ts), so these enrollments sort in the order made.
  const eLifetime = await enroll(db, a.id, { userId: student.id, courseId: lifetime });
  const eExpiring = await enroll(db, a.id, {
    userId: student.id,
    courseId: expiring,
    expiresAt: isoIn(30 * 86400),
  });
  // Enrolled two days ago for one day: expired yesterday (an expiry in the past is refused).
  const eExpired = await t.clock.travel(-2 * DAY, () =>
    enroll(db, a.id, { userId: student.id, courseId: expired, expiresAt: isoIn(86400) }),
  );
  const eInB = await enroll(db, b.id, { userId: student.id, courseId: other });
  await enroll(db, a.id, { userId: classmate.id, courseId: classmateCourse });
  await enroll(db, a.id, { userId: classmate.id, courseId: lifetime });
  await recordLectureProgress(db, a.id, student.id, {
    lectureId: first.id,
    positionSeconds: 300,
    completed: true,
  });
  await recordLectureProgress(db, a.id, student.id, { lectureId: second.id, positionSeconds: 42 });

  const event = async (
    schoolId: string,
    title: string,
    startsIn: number,
    extra: Record<string, unknown> = {},
  ) =>
    (
      await createEvent(db, schoolId, {
        title,
        startsAt: isoIn(startsIn),
        endsAt: isoIn(startsIn + 3600),
        onlineUrl: 'https://meet.example.com/x',
        ...extra,
      })
    ).id;
  const full = await event(a.id, 'Tiny workshop', 86400, { capacity: 1 });
  const open = await event(a.id, 'Open Q&A', 2 * 86400);
  const canceled = await event(a.id, 'Canceled talk', 3 * 86400, { status: 'canceled' });
  const past = await event(a.id, 'Last week', -7 * 86400);
  const inB = await event(b.id, 'Beta meetup', 86400);
  await registerForEvent(db, a.id, full, classmate.id);
  await registerForEvent(db, a.id, open, student.id);
  await registerForEvent(db, b.id, inB, student.id);

  const ordersA: string[] = [];
  for (const [i, amount] of [4900, 9900].entries()) {
    const o = await recordOrder(db, a.id, {
      userId: student.id,
      currency: 'USD',
      items: [
        {
          productType: 'course',
          productId: i === 0 ? lifetime : expiring,
          title: `Course ${i}`,
          unitAmount: amount,
        },
      ],
      createdAt: isoIn(-86400 * (10 - i)),
    });
    ordersA.push(o.id);
  }
  await recordOrder(db, a.id, {
    userId: classmate.id,
    currency: 'USD',
    items: [{ productType: 'course', productId: lifetime, title: 'Hers', unitAmount: 100 }],
  });
  await recordOrder(db, b.id, {
    userId: student.id,
    currency: 'EUR',
    items: [{ productType: 'course', productId: other, title: 'Beta', unitAmount: 500 }],
  });

  const plan = await createMembershipPlan(db, a.id, {
    name: 'All access',
    description: 'Every course',
    interval: 'month',
    priceAmount: 1900,
    currency: 'USD',
  });
  const subscription = (
    await createSubscription(db, a.id, {
      userId: student.id,
      planId: plan.id,
      currentPeriodEnd: isoIn(20 * 86400),
    })
  ).id;

  return {
    schoolA: a.id,
    schoolB: b.id,
    student: student.id,
    classmate: classmate.id,
    courses: { lifetime, expiring, expired, other },
    lectures: {
      first: first.id,
      second: second.id,
      preview: preview.id,
      expired: expiredLecture.id,
      classmateOnly: classmateOnly.id,
    },
    enrollments: { lifetime: eLifetime.id, expiring: eExpiring.id, expired: eExpired.id, inB: eInB.id },
    events: { full, open, canceled, past, inB },
    ordersA,
    subscription,
    token: async (scopes = ['openid', 'account:read', 'account:write'], school = 'A') =>
      (
        await issueTestToken(t, {
          userId: student.id,
          schoolId: school === 'A' ? a.id : b.id,
          scopes,
          audience: 'member',
          clientId: `member-app-${school}`,
        })
      ).token,
  };
}
