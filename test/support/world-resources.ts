import { newId } from '../../src/crypto/ids.ts';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import { createLecture, createSection } from '../../src/domain/catalog/curriculum.ts';
import { createLecturer } from '../../src/domain/catalog/lecturers.ts';
import { createCoupon } from '../../src/domain/commerce/coupons.ts';
import { createDigitalProduct } from '../../src/domain/commerce/digital-products.ts';
import { createMembershipPlan } from '../../src/domain/commerce/membership-plans.ts';
import { recordOrder } from '../../src/domain/commerce/orders.ts';
import { createSubscription } from '../../src/domain/commerce/subscriptions.ts';
import { registerForEvent } from '../../src/domain/community/event-registrations.ts';
import { createEvent } from '../../src/domain/community/events.ts';
import { createSitePage } from '../../src/domain/community/pages.ts';
import { createPost } from '../../src/domain/community/posts.ts';
import { enroll } from '../../src/domain/learning/enrollments.ts';
import { localFileStore } from '../../src/domain/school/file-store.ts';
import { createInvitation } from '../../src/domain/school/invitations.ts';
import { findMembership } from '../../src/domain/school/memberships.ts';
import { storeFile } from '../../src/domain/school/storage.ts';
import { isoIn, isoNow } from '../../src/store/time.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import type { TestApp } from './app.ts';
import type { SchoolFixture } from './world.ts';

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

/** Ids of one of everything at a school, keyed by the path parameter that names them. */
export type Resources = Record<string, string> & { studentUserId: string };

/**
 * Seeds one of every admin resource at a school of the world (schoolFixture) through the domain
 * modules, for the admin API's tests that walk every operation.
 */
export async function seedResources(t: TestApp, s: SchoolFixture, tag = 'w'): Promise<Resources> {
  const db = t.runtime.db;
  const studentUserId = await s.person(['student']);
  const adminUserId = await s.person(['admin']);
  // A member enrolled in nothing, for enrolling by email.
  const unenrolledEmail = `unenrolled-${tag}-${s.schoolId.slice(-8).toLowerCase()}@example.com`;
  await s.person(['student'], unenrolledEmail);
  const lecturer = await createLecturer(db, s.schoolId, { name: `Lecturer ${tag}` });
  const course = await createCourse(db, s.schoolId, {
    slug: `course-${tag}`,
    title: `Course ${tag}`,
    priceAmount: 4900,
    currency: 'EUR',
    lecturerIds: [lecturer.id],
    status: 'published',
  });
  const section = await createSection(db, s.schoolId, course.id, { title: 'Start' });
  const lecture = await createLecture(db, s.schoolId, section.id, {
    title: 'Welcome',
    type: 'text',
    body: 'Hi',
  });
  await createLecture(db, s.schoolId, section.id, { title: 'Second', type: 'video', durationSeconds: 60 });
  const enrollment = await enroll(db, s.schoolId, { userId: studentUserId, courseId: course.id });
  const coupon = await createCoupon(db, s.schoolId, {
    code: `C${tag}`.toUpperCase(),
    kind: 'percent',
    percentOff: 10,
  });
  const order = await recordOrder(db, s.schoolId, {
    userId: studentUserId,
    currency: 'EUR',
    items: [{ productType: 'course', productId: course.id, title: course.title, unitAmount: 4900 }],
    couponId: coupon.id,
    discountAmount: 490,
  });
  const event = await createEvent(db, s.schoolId, {
    title: `Event ${tag}`,
    startsAt: isoIn(86_400),
    endsAt: isoIn(90_000),
    capacity: 10,
    onlineUrl: 'https://meet.example/x',
  });
  const { registration } = await registerForEvent(db, s.schoolId, event.id, studentUserId);
  const plan = await createMembershipPlan(db, s.schoolId, {
    name: `Plan ${tag}`,
    interval: 'month',
    priceAmount: 1900,
    currency: 'EUR',
    courseIds: [course.id],
  });
  const subscription = await createSubscription(db, s.schoolId, {
    userId: studentUserId,
    planId: plan.id,
    currentPeriodEnd: isoIn(20 * 86_400),
  });
  const file = await storeFile(db, localFileStore(t.config.filesDir), t.config.uploadLimitBytes, s.schoolId, {
    bytes: PNG,
    contentType: 'image/png',
    filename: 'dot.png',
  });
  const product = await createDigitalProduct(db, s.schoolId, {
    title: `Workbook ${tag}`,
    priceAmount: 900,
    fileId: file.id,
    status: 'published',
  });
  const post = await createPost(db, s.schoolId, {
    title: `Post ${tag}`,
    slug: `post-${tag}`,
    body: 'Hello',
    status: 'published',
    authorUserId: s.ownerId,
  });
  const page = await createSitePage(db, s.schoolId, {
    slug: `page-${tag}`,
    title: `Page ${tag}`,
    blocks: [{ type: 'text', markdown: 'x' }],
    published: true,
  });
  const now = isoNow();
  const commentId = newId('cmt');
  await db
    .insertInto('comments')
    .values({
      id: commentId,
      school_id: s.schoolId,
      author_user_id: studentUserId,
      target_type: 'lecture',
      target_id: lecture.id,
      body: 'Great lecture',
      created_at: now,
    })
    .execute();
  const formId = newId('frm');
  await db
    .insertInto('forms')
    .values({
      id: formId,
      school_id: s.schoolId,
      title: `Form ${tag}`,
      fields: JSON.stringify([{ name: 'question', label: 'Question', type: 'text' }]),
      created_at: now,
      updated_at: now,
    })
    .execute();
  const submissionId = newId('sub');
  await db
    .insertInto('form_submissions')
    .values({
      id: submissionId,
      school_id: s.schoolId,
      form_id: formId,
      email: 'sam@example.com',
      data: JSON.stringify({ question: 'When?' }),
      submitted_at: now,
    })
    .execute();
  await db
    .insertInto('lecture_progress')
    .values({
      enrollment_id: enrollment.id,
      lecture_id: lecture.id,
      position_seconds: 30,
      completed_at: now,
      updated_at: now,
    })
    .execute();
  const adminMembership = await findMembership(db, s.schoolId, adminUserId);
  const invitation = await createInvitation(db, s.schoolId, {
    email: `invited-${tag}-${s.schoolId.slice(-8).toLowerCase()}@example.com`,
    roles: ['lecturer'],
    invitedByUserId: s.ownerId,
    emailed: false,
  });
  const { endpoint } = await createEndpoint(
    db,
    s.schoolId,
    { url: `https://hooks.example.com/${tag}`, eventTypes: ['*'] },
    { key: t.config.secret, allowLoopbackHttp: false, secretOverlapSeconds: 3600 },
  );
  // One attempt in the endpoint's delivery log, as the worker would have written it.
  const published = await db
    .selectFrom('domain_events')
    .select(['id', 'type'])
    .where('school_id', '=', s.schoolId)
    .where('type', '=', 'course.published')
    .executeTakeFirstOrThrow();
  const deliveryId = newId('whd');
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: deliveryId,
      school_id: s.schoolId,
      endpoint_id: endpoint.id,
      event_id: published.id,
      status: 'succeeded',
      attempts: 1,
      next_attempt_at: null,
      lease_owner: null,
      lease_until: null,
      last_status_code: 204,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await db
    .insertInto('webhook_attempts')
    .values({
      id: newId('wha'),
      school_id: s.schoolId,
      delivery_id: deliveryId,
      endpoint_id: endpoint.id,
      event_id: published.id,
      event_type: published.type,
      attempted_at: now,
      status_code: 204,
      latency_ms: 12,
      response_excerpt: '',
      error: null,
      next_retry_at: null,
    })
    .execute();
  return {
    endpoint_id: endpoint.id,
    studentUserId,
    unenrolled_email: unenrolledEmail,
    course_id: course.id,
    section_id: section.id,
    lecture_id: lecture.id,
    enrollment_id: enrollment.id,
    member_id: adminMembership!.id,
    invitation_id: invitation.invitation.id,
    lecturer_id: lecturer.id,
    order_id: order.id,
    coupon_id: coupon.id,
    event_id: event.id,
    registration_id: registration.id,
    membership_plan_id: plan.id,
    subscription_id: subscription.id,
    digital_product_id: product.id,
    post_id: post.id,
    comment_id: commentId,
    form_id: formId,
    submission_id: submissionId,
    page_id: page.id,
    file_id: file.id,
  };
}
