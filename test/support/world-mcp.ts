import { createCourse } from '../../src/domain/catalog/courses.ts';
import { createLecture, createSection } from '../../src/domain/catalog/curriculum.ts';
import { recordOrder } from '../../src/domain/commerce/orders.ts';
import { registerForEvent } from '../../src/domain/community/event-registrations.ts';
import { createEvent } from '../../src/domain/community/events.ts';
import { enroll } from '../../src/domain/learning/enrollments.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { isoIn } from '../../src/store/time.ts';
import type { TestApp } from './app.ts';
import { issueTestToken } from './tokens.ts';
import { addPerson } from './world.ts';

/** The people and things of a seeded school, by role. */
export interface Seeded {
  schoolId: string;
  otherSchoolId: string;
  ownerId: string;
  studentId: string;
  publishedCourseId: string;
  lectureIds: string[];
  upcomingEventId: string;
  secondEventId: string;
}

/** An operator-audience access token of the scene's owner with these scopes. */
export async function ownerOperatorToken(
  t: TestApp,
  seeded: Seeded,
  scopes: readonly string[],
): Promise<string> {
  const issued = await issueTestToken(t, {
    userId: seeded.ownerId,
    schoolId: seeded.schoolId,
    audience: 'operator',
    scopes: [...scopes],
  });
  return issued.token;
}

/** A member-audience access token of the scene's student with these scopes. */
export async function studentMemberToken(
  t: TestApp,
  seeded: Seeded,
  scopes: readonly string[],
): Promise<string> {
  const issued = await issueTestToken(t, {
    userId: seeded.studentId,
    schoolId: seeded.schoolId,
    audience: 'member',
    scopes: [...scopes],
  });
  return issued.token;
}

/**
 * The scene seeded, with a token of each audience: the owner's operator token with every operator
 * scope, and the student's member token with account:read and account:write.
 */
export async function seedAudienceTokens(t: TestApp): Promise<{ operator: string; member: string }> {
  const seeded = await seedSchool(t);
  return {
    operator: await ownerOperatorToken(t, seeded, OPERATOR_SCOPES),
    member: await studentMemberToken(t, seeded, ['account:read', 'account:write']),
  };
}

/**
 * The MCP tools' scene: a school "Acme Academy" (subdomain `acme`) with courses, curriculum,
 * events and one student's data, beside a school of its own to stay invisible.
 */
export async function seedSchool(t: TestApp): Promise<Seeded> {
  const db = t.runtime.db;
  const school = await createSchool(db, { name: 'Acme Academy', subdomain: 'acme', currency: 'EUR' });
  const other = await createSchool(db, { name: 'Other School', subdomain: 'other' });
  const owner = { id: await addPerson(db, school.id, ['owner'], 'owner@acme.test', 'Olive Owner') };
  const student = { id: await addPerson(db, school.id, ['student'], 'student@acme.test', 'Sam Student') };

  const published = await createCourse(db, school.id, {
    slug: 'intro-to-typescript',
    title: 'Intro to TypeScript',
    description: 'Types for JavaScript developers.',
    status: 'published',
    priceAmount: 4900,
  });
  await createCourse(db, school.id, {
    slug: 'secret-draft',
    title: 'Secret Draft TypeScript',
    description: 'Not yet public.',
  });
  await createCourse(db, other.id, {
    slug: 'other-typescript',
    title: 'Other TypeScript',
    status: 'published',
  });
  const s1 = await createSection(db, school.id, published.id, { title: 'Basics' });
  const l1 = await createLecture(db, school.id, s1.id, {
    title: 'Welcome',
    type: 'video',
    durationSeconds: 300,
    isFreePreview: true,
    videoUrl: 'https://video.example/secret-welcome.mp4',
  });
  const l2 = await createLecture(db, school.id, s1.id, {
    title: 'Types',
    type: 'text',
    durationSeconds: 600,
    body: 'PAID BODY TEXT',
  });
  const s2 = await createSection(db, school.id, published.id, { title: 'Generics' });
  const l3 = await createLecture(db, school.id, s2.id, {
    title: 'Generic functions',
    type: 'video',
    durationSeconds: 900,
  });

  const upcoming = await createEvent(db, school.id, {
    title: 'Live Q&A',
    startsAt: isoIn(86400),
    endsAt: isoIn(90000),
    capacity: 10,
    onlineUrl: 'https://meet.example/secret-room',
  });
  const second = await createEvent(db, school.id, {
    title: 'Office hours',
    startsAt: isoIn(2 * 86400),
    endsAt: isoIn(2 * 86400 + 3600),
    location: 'Room 1',
  });
  await createEvent(db, school.id, {
    title: 'Members-only meetup',
    startsAt: isoIn(86400),
    endsAt: isoIn(90000),
    visibility: 'members',
  });
  await createEvent(db, school.id, { title: 'Past webinar', startsAt: isoIn(-90000), endsAt: isoIn(-86400) });

  await enroll(db, school.id, { userId: student.id, courseId: published.id });
  await recordOrder(db, school.id, {
    userId: student.id,
    currency: 'EUR',
    items: [
      { productType: 'course', productId: published.id, title: 'Intro to TypeScript', unitAmount: 4900 },
    ],
  });
  await registerForEvent(db, school.id, upcoming.id, student.id);
  return {
    schoolId: school.id,
    otherSchoolId: other.id,
    ownerId: owner.id,
    studentId: student.id,
    publishedCourseId: published.id,
    lectureIds: [l1.id, l2.id, l3.id],
    upcomingEventId: upcoming.id,
    secondEventId: second.id,
  };
}
