import { newId } from '../../crypto/ids.ts';
import type { Tx } from '../../store/database.ts';
import { isoIn, isoNow } from '../../store/time.ts';
import { createCourse } from '../catalog/courses.ts';
import { createLecture, createSection } from '../catalog/curriculum.ts';
import type { LectureInput } from '../catalog/curriculum-rows.ts';
import { createLecturer } from '../catalog/lecturers.ts';
import { createMembershipPlan } from '../commerce/membership-plans.ts';
import { recordOrder } from '../commerce/orders.ts';
import { createSubscription } from '../commerce/subscriptions.ts';
import { registerForEvent } from '../community/event-registrations.ts';
import { createEvent } from '../community/events.ts';
import { enroll } from '../learning/enrollments.ts';
import { recordLectureProgress } from '../learning/record-progress.ts';
import { seedDemoCommunity } from './demo-community.ts';
import { DEMO, type DemoPeople } from './demo-constants.ts';

type LectureSpec = Pick<
  LectureInput,
  'title' | 'type' | 'durationSeconds' | 'isFreePreview' | 'body' | 'videoUrl'
>;

const v = (title: string, minutes: number, isFreePreview = false): LectureSpec => ({
  title,
  type: 'video',
  durationSeconds: Math.round(minutes * 60),
  isFreePreview,
  videoUrl: `https://videos.example.com/demo/${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.mp4`,
});
const t = (title: string, minutes: number, body: string): LectureSpec => ({
  title,
  type: 'text',
  durationSeconds: minutes * 60,
  body,
});
const q = (title: string, minutes: number): LectureSpec => ({
  title,
  type: 'quiz',
  durationSeconds: minutes * 60,
});
const file = (title: string): LectureSpec => ({ title, type: 'file', durationSeconds: 0 });

async function course(
  tx: Tx,
  schoolId: string,
  input: Parameters<typeof createCourse>[2],
  sections: Array<[string, LectureSpec[]]>,
): Promise<{ id: string; lectures: string[] }> {
  const created = await createCourse(tx, schoolId, input);
  const lectures: string[] = [];
  for (const [title, specs] of sections) {
    const section = await createSection(tx, schoolId, created.id, { title });
    for (const spec of specs) lectures.push((await createLecture(tx, schoolId, section.id, spec)).id);
  }
  return { id: created.id, lectures };
}

/** Courses, learning, commerce and community data of product.md §9, inside the seed's transaction. */
export async function seedDemoCatalogue(tx: Tx, p: DemoPeople): Promise<void> {
  const s = p.demoSchoolId;
  const leo = await createLecturer(tx, s, {
    name: 'Leo Lecturer',
    userId: p.lecturerId,
    headline: 'TypeScript and accessibility teacher',
    bio: 'Leo has taught web development for ten years and writes about accessible interfaces.',
  });
  const ts = await course(
    tx,
    s,
    {
      slug: DEMO.courses.typescript,
      title: 'Getting Started with TypeScript',
      description: 'Types, functions and generics from the ground up, with small projects.',
      status: 'published',
      priceAmount: 4900,
      checkoutUrl: DEMO.checkoutUrl,
      lecturerIds: [leo.id],
    },
    [
      [
        'Foundations',
        [
          v('Welcome and setup', 8, true),
          v('Types and values', 12.5),
          t('Reading: compiler options', 10, 'The options that matter most: strict, target, module.'),
        ],
      ],
      [
        'Putting it to work',
        [v('Generics', 15), q('Check your understanding', 5), file('Cheat sheet (PDF)')],
      ],
    ],
  );
  const a11y = await course(
    tx,
    s,
    {
      slug: DEMO.courses.accessibility,
      title: 'Web Accessibility Essentials',
      description: 'Build pages everyone can use: semantics, keyboard, contrast and testing.',
      status: 'published',
      priceAmount: 2900,
      lecturerIds: [leo.id],
    },
    [
      [
        'Principles',
        [
          v('Why accessibility matters', 6, true),
          t('WCAG in one page', 8, 'Perceivable, operable, understandable, robust.'),
        ],
      ],
      ['Practice', [v('Keyboard navigation', 11), q('Audit a page', 10)]],
    ],
  );
  const sqlCourse = await course(
    tx,
    s,
    {
      slug: DEMO.courses.sql,
      title: 'SQL for Course Creators',
      description: 'Answer questions about your students with a few queries.',
      status: 'published',
      priceAmount: 0,
    },
    [['Queries', [v('Selecting rows', 7, true), v('Joining tables', 9), q('Practice queries', 6)]]],
  );
  await course(
    tx,
    s,
    {
      slug: DEMO.courses.draft,
      title: 'Advanced Course Marketing',
      description: 'Launches, funnels and pricing experiments (in preparation).',
      status: 'draft',
      priceAmount: 9900,
      lecturerIds: [leo.id],
    },
    [['Launch', [v('Planning a launch', 14), t('Pricing worksheet', 5, 'List your offers and anchors.')]]],
  );

  // Coupons, digital product and plans, as the rows their modules read.
  const now = isoNow();
  const welcomeId = newId('cpn');
  await tx
    .insertInto('coupons')
    .values([
      {
        id: welcomeId,
        school_id: s,
        code: DEMO.coupons.welcome,
        kind: 'percent',
        percent_off: 10,
        amount_off: null,
        currency: null,
        max_redemptions: 100,
        redemptions_count: 1,
        expires_at: isoIn(365 * 86400),
        applies_to: null,
        active: 1,
        created_at: now,
        updated_at: now,
      },
      {
        id: newId('cpn'),
        school_id: s,
        code: DEMO.coupons.spring,
        kind: 'fixed',
        percent_off: null,
        amount_off: 500,
        currency: 'USD',
        max_redemptions: 20,
        redemptions_count: 0,
        expires_at: isoIn(90 * 86400),
        applies_to: JSON.stringify([{ type: 'course', id: a11y.id }]),
        active: 1,
        created_at: now,
        updated_at: now,
      },
    ])
    .execute();
  const productId = newId('dpr');
  await tx
    .insertInto('digital_products')
    .values({
      id: productId,
      school_id: s,
      title: DEMO.digitalProduct,
      description: 'Printable one-page references for everyday TypeScript.',
      price_amount: 900,
      currency: 'USD',
      file_id: null,
      status: 'published',
      created_at: now,
      updated_at: now,
    })
    .execute();
  const monthly = await createMembershipPlan(tx, s, {
    name: DEMO.plans.monthly,
    description: 'Every published course while subscribed.',
    interval: 'month',
    priceAmount: 1900,
    courseIds: [ts.id, a11y.id, sqlCourse.id],
  });
  await createMembershipPlan(tx, s, {
    name: DEMO.plans.yearly,
    description: 'Every published course, billed yearly.',
    interval: 'year',
    priceAmount: 19000,
    courseIds: [ts.id, a11y.id, sqlCourse.id],
  });

  // The student's purchases, enrollments and progress.
  await recordOrder(tx, s, {
    userId: p.studentId,
    currency: 'USD',
    items: [
      { productType: 'course', productId: ts.id, title: 'Getting Started with TypeScript', unitAmount: 4900 },
    ],
    createdAt: isoIn(-60 * 86400),
  });
  await recordOrder(tx, s, {
    userId: p.studentId,
    currency: 'USD',
    items: [
      { productType: 'course', productId: a11y.id, title: 'Web Accessibility Essentials', unitAmount: 2900 },
    ],
    discountAmount: 290,
    couponId: welcomeId,
    createdAt: isoIn(-30 * 86400),
  });
  await recordOrder(tx, s, {
    userId: p.studentId,
    currency: 'USD',
    status: 'refunded',
    refundedAmount: 900,
    items: [{ productType: 'digital_product', productId, title: DEMO.digitalProduct, unitAmount: 900 }],
    createdAt: isoIn(-10 * 86400),
  });
  await createSubscription(tx, s, {
    userId: p.studentId,
    planId: monthly.id,
    status: 'active',
    currentPeriodEnd: isoIn(20 * 86400),
  });
  // Lifetime access to TypeScript: three lectures done, the fourth half-watched (3/6 = 50 %).
  await enroll(tx, s, {
    userId: p.studentId,
    courseId: ts.id,
    source: 'order',
    enrolledAt: isoIn(-60 * 86400),
  });
  for (const id of ts.lectures.slice(0, 3)) {
    await recordLectureProgress(tx, s, p.studentId, { lectureId: id, positionSeconds: 0, completed: true });
  }
  await recordLectureProgress(tx, s, p.studentId, { lectureId: ts.lectures[3], positionSeconds: 95 });
  // Expiring access to Accessibility (a year from purchase): one of four done (25 %).
  await enroll(tx, s, {
    userId: p.studentId,
    courseId: a11y.id,
    source: 'order',
    enrolledAt: isoIn(-30 * 86400),
    expiresAt: isoIn(335 * 86400),
  });
  await recordLectureProgress(tx, s, p.studentId, {
    lectureId: a11y.lectures[0],
    positionSeconds: 360,
    completed: true,
  });
  await recordLectureProgress(tx, s, p.studentId, { lectureId: a11y.lectures[1], positionSeconds: 40 });
  // SQL through the membership plan, finished (100 %).
  await enroll(tx, s, { userId: p.studentId, courseId: sqlCourse.id, source: 'membership_plan' });
  for (const id of sqlCourse.lectures) {
    await recordLectureProgress(tx, s, p.studentId, { lectureId: id, positionSeconds: 0, completed: true });
  }

  // Events: an upcoming public one the student is registered for, a members-only one, a past one.
  const qa = await createEvent(tx, s, {
    title: DEMO.events.qa,
    description: 'Bring your questions about generics.',
    startsAt: isoIn(7 * 86400),
    endsAt: isoIn(7 * 86400 + 3600),
    capacity: 50,
    onlineUrl: 'https://meet.example.com/demo-qa',
  });
  await registerForEvent(tx, s, qa.id, p.studentId);
  await createEvent(tx, s, {
    title: DEMO.events.workshop,
    startsAt: isoIn(14 * 86400),
    endsAt: isoIn(14 * 86400 + 7200),
    capacity: 12,
    location: 'Room 4, Demo Academy campus',
    visibility: 'members',
  });
  await createEvent(tx, s, {
    title: DEMO.events.past,
    startsAt: isoIn(-30 * 86400),
    endsAt: isoIn(-30 * 86400 + 3600),
    onlineUrl: 'https://meet.example.com/kick-off',
  });

  await seedDemoCommunity(tx, p, ts.lectures[1], [sqlCourse.id, ts.id, a11y.id]);
  await seedOtherSchool(tx, p);
}

async function seedOtherSchool(tx: Tx, p: DemoPeople): Promise<void> {
  const s = p.otherSchoolId;
  const olga = await createLecturer(tx, s, {
    name: 'Olga Other',
    userId: p.otherLecturerId,
    headline: 'Python-Dozentin',
  });
  const python = await course(
    tx,
    s,
    {
      slug: DEMO.courses.other,
      title: 'Einführung in Python',
      description: 'Python von Anfang an.',
      status: 'published',
      priceAmount: 3900,
      lecturerIds: [olga.id],
    },
    [['Grundlagen', [v('Willkommen', 5, true), t('Variablen', 8, 'Namen für Werte.')]]],
  );
  await enroll(tx, s, { userId: p.otherStudentId, courseId: python.id, source: 'manual' });
  await recordLectureProgress(tx, s, p.otherStudentId, {
    lectureId: python.lectures[0],
    positionSeconds: 120,
    completed: true,
  });
}
