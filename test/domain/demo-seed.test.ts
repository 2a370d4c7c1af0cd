import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { verifyPassword } from '../../src/crypto/passwords.ts';
import { listCourses } from '../../src/domain/catalog/courses.ts';
import { getCurriculum } from '../../src/domain/catalog/curriculum.ts';
import { listLecturers } from '../../src/domain/catalog/lecturers.ts';
import { listMembershipPlans } from '../../src/domain/commerce/membership-plans.ts';
import { listOrders } from '../../src/domain/commerce/orders.ts';
import { listSubscriptions } from '../../src/domain/commerce/subscriptions.ts';
import { listUserRegistrations } from '../../src/domain/community/event-registrations.ts';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { DEMO_PASSWORD, seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { listEnrollments } from '../../src/domain/learning/enrollments.ts';
import { findMembership } from '../../src/domain/school/memberships.ts';
import { betaFeatures, findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { type Db, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { TABLES } from '../store/tables.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

async function counts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const row = await db.selectFrom(table).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

describe('demo data (product.md §9)', () => {
  let database: TestDatabase;
  let db: Db;
  let demo: string;
  let other: string;
  let studentId: string;
  before(async () => {
    database = await createTestDatabase();
    db = openDatabase(database.options);
    await migrateToLatest(db);
    assert.deepEqual(await seedDemoData(db), { created: true });
    demo = (await findSchoolBySubdomain(db, 'demo'))!.id;
    other = (await findSchoolBySubdomain(db, 'other'))!.id;
    studentId = (await findUserByEmail(db, 'student@example.com'))!.id;
  });
  after(async () => {
    await db.destroy();
    await database.drop();
  });

  it('is idempotent: a second and a concurrent run create nothing', async () => {
    const first = await counts(db);
    assert.deepEqual(await seedDemoData(db), { created: false });
    const results = await Promise.all([seedDemoData(db), seedDemoData(db)]);
    assert.deepEqual(results, [{ created: false }, { created: false }]);
    assert.deepEqual(await counts(db), first);
    for (const table of [
      'courses',
      'enrollments',
      'orders',
      'coupons',
      'posts',
      'form_submissions',
    ] as const) {
      assert.ok(first[table] > 0, `${table} has demo rows`);
    }
  });

  it('seeds once when two seeders start together on an empty database', async () => {
    const fresh = await createTestDatabase();
    const a = openDatabase(fresh.options);
    const b = openDatabase(fresh.options);
    try {
      await migrateToLatest(a);
      const results = await Promise.all([seedDemoData(a), seedDemoData(b)]);
      assert.deepEqual(results.map((r) => r.created).sort(), [false, true]);
      const schools = await a.selectFrom('schools').select('subdomain').orderBy('subdomain').execute();
      assert.deepEqual(
        schools.map((s) => s.subdomain),
        ['demo', 'other'],
      );
    } finally {
      await a.destroy();
      await b.destroy();
      await fresh.drop();
    }
  });

  it('has Demo Academy with the MCP beta on, and Other School', async () => {
    const school = (await findSchoolBySubdomain(db, 'demo'))!;
    assert.equal(school.name, 'Demo Academy');
    assert.deepEqual(betaFeatures(school), ['mcp_connections']);
    const o = (await findSchoolBySubdomain(db, 'other'))!;
    assert.equal(o.name, 'Other School');
    assert.deepEqual(betaFeatures(o), []);
  });

  it('has the demo people, roles and password', async () => {
    const expected: Array<[string, string, string]> = [
      ['owner@example.com', 'demo', 'owner'],
      ['lecturer@example.com', 'demo', 'lecturer'],
      ['student@example.com', 'demo', 'student'],
      ['other-owner@example.com', 'other', 'owner'],
      ['other-lecturer@example.com', 'other', 'lecturer'],
      ['other-student@example.com', 'other', 'student'],
    ];
    for (const [email, sub, role] of expected) {
      const user = (await findUserByEmail(db, email))!;
      assert.ok(user, email);
      const schoolId = sub === 'demo' ? demo : other;
      assert.deepEqual((await findMembership(db, schoolId, user.id))?.roles, [role], email);
      assert.equal(await findMembership(db, sub === 'demo' ? other : demo, user.id), undefined, email);
    }
    const owner = (await findUserByEmail(db, 'owner@example.com'))!;
    assert.equal(await verifyPassword(owner.password_hash, DEMO_PASSWORD), true);
    assert.equal(await verifyPassword(owner.password_hash, 'wrong-password'), false);
  });

  it('has the Demo Member App', async () => {
    const client = await db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('id', '=', 'demo-member-app')
      .executeTakeFirstOrThrow();
    assert.equal(client.name, 'Demo Member App');
    assert.equal(client.kind, 'member');
    assert.equal(client.school_id, demo);
    assert.equal(client.token_endpoint_auth_method, 'none');
    assert.deepEqual(JSON.parse(client.redirect_uris), ['http://127.0.0.1/callback']);
    assert.equal(client.allowed_scopes, 'openid profile email account:read account:write');
  });

  it('has published courses with curricula of every lecture type, one draft, a linked lecturer', async () => {
    const courses = (await listCourses(db, demo, {}, { limit: 100 })).data;
    assert.deepEqual(
      courses.map((c) => [c.slug, c.status]).sort(),
      [
        [DEMO.courses.draft, 'draft'],
        [DEMO.courses.sql, 'published'],
        [DEMO.courses.accessibility, 'published'],
        [DEMO.courses.typescript, 'published'],
      ].sort(),
    );
    const ts = courses.find((c) => c.slug === DEMO.courses.typescript)!;
    assert.equal(ts.priceAmount, 4900);
    assert.equal(ts.currency, 'USD');
    const tree = await getCurriculum(db, demo, ts.id);
    assert.equal(tree.length, 2);
    const lectures = tree.flatMap((s) => s.lectures);
    assert.deepEqual([...new Set(lectures.map((l) => l.type))].sort(), ['file', 'quiz', 'text', 'video']);
    assert.ok(lectures.filter((l) => l.type === 'video').every((l) => l.durationSeconds > 0));
    assert.equal(lectures[0].isFreePreview, true);
    const [leo] = (await listLecturers(db, demo)).data;
    const lecturerUser = (await findUserByEmail(db, 'lecturer@example.com'))!;
    assert.equal(leo.userId, lecturerUser.id);
    assert.ok(leo.courses.some((c) => c.slug === DEMO.courses.typescript));
    assert.deepEqual(ts.lecturers, [{ id: leo.id, name: 'Leo Lecturer' }]);
  });

  it("has the student's enrollments: lifetime and expiring, progress consistent with lecture progress", async () => {
    const enrollments = (await listEnrollments(db, demo, { userId: studentId })).data;
    assert.ok(enrollments.length >= 2);
    const bySlug = new Map(enrollments.map((e) => [e.course.slug, e]));
    assert.equal(bySlug.get(DEMO.courses.typescript)?.lifetime, true);
    assert.equal(bySlug.get(DEMO.courses.typescript)?.progressPercent, 50);
    assert.equal(bySlug.get(DEMO.courses.typescript)?.lastPositionSeconds, 95);
    const expiring = bySlug.get(DEMO.courses.accessibility)!;
    assert.ok(expiring.expiresAt && expiring.expiresAt > new Date().toISOString());
    assert.equal(expiring.active, true);
    assert.equal(expiring.progressPercent, 25);
    assert.equal(bySlug.get(DEMO.courses.sql)?.progressPercent, 100);
    assert.ok(bySlug.get(DEMO.courses.sql)?.completedAt);
    for (const e of enrollments) {
      const lectures = (await getCurriculum(db, demo, e.courseId)).flatMap((s) => s.lectures);
      const progress = await db
        .selectFrom('lecture_progress')
        .selectAll()
        .where('enrollment_id', '=', e.id)
        .execute();
      const done = progress.filter((p) => p.completed_at !== null).length;
      assert.equal(e.progressPercent, Math.floor((done * 100) / lectures.length), e.course.slug);
      assert.equal(e.completedAt !== null, e.progressPercent === 100);
      const last = progress.find((p) => p.lecture_id === e.lastLectureId);
      assert.ok(last, `${e.course.slug}: last watched lecture has progress`);
      assert.equal(last.position_seconds, e.lastPositionSeconds);
      assert.ok(e.lastWatchedAt);
    }
  });

  it('has orders (paid, one with a coupon, one refunded), a subscription and an event registration', async () => {
    const orders = (await listOrders(db, demo, { userId: studentId })).data;
    assert.ok(orders.filter((o) => o.status === 'paid').length >= 2);
    const withCoupon = orders.find((o) => o.couponCode === DEMO.coupons.welcome)!;
    assert.equal(withCoupon.discountAmount, 290);
    assert.equal(withCoupon.totalAmount, 2610);
    const refunded = orders.find((o) => o.status === 'refunded')!;
    assert.equal(refunded.refundedAmount, refunded.totalAmount);
    assert.ok(orders.every((o) => o.items.length > 0));
    const subs = (await listSubscriptions(db, demo, { userId: studentId })).data;
    assert.deepEqual(
      subs.map((s) => [s.plan.name, s.status]),
      [[DEMO.plans.monthly, 'active']],
    );
    const plans = (await listMembershipPlans(db, demo)).data;
    assert.ok(plans.every((p) => p.courses.length === 3));
    const regs = (
      await listUserRegistrations(db, demo, studentId, {}, { upcomingOnly: true, activeOnly: true })
    ).data;
    assert.deepEqual(
      regs.map((r) => r.event.title),
      [DEMO.events.qa],
    );
    assert.ok(regs[0].event.startsAt > new Date().toISOString());
  });

  it('has coupons, a digital product, posts, comments, pages, forms and submissions', async () => {
    const n = async (
      table: 'coupons' | 'digital_products' | 'posts' | 'comments' | 'pages' | 'forms' | 'form_submissions',
    ) => (await db.selectFrom(table).select('id').where('school_id', '=', demo).execute()).length;
    assert.equal(await n('coupons'), 2);
    assert.equal(await n('digital_products'), 1);
    assert.equal(await n('posts'), 2);
    assert.equal(await n('comments'), 2);
    assert.equal(await n('pages'), 3);
    assert.equal(await n('forms'), 1);
    assert.equal(await n('form_submissions'), 2);
    const slugs = (
      await db.selectFrom('pages').select('slug').where('school_id', '=', demo).orderBy('slug').execute()
    ).map((p) => p.slug);
    assert.deepEqual(slugs, ['about', 'faq', 'home']);
  });

  it('gives Other School its own course, lecturer and enrolled student, invisible from Demo Academy', async () => {
    const courses = (await listCourses(db, other)).data;
    assert.deepEqual(
      courses.map((c) => [c.slug, c.currency]),
      [[DEMO.courses.other, 'EUR']],
    );
    const enrollments = (await listEnrollments(db, other)).data;
    assert.deepEqual(
      enrollments.map((e) => e.user.email),
      ['other-student@example.com'],
    );
    assert.equal((await listLecturers(db, other)).data[0].name, 'Olga Other');
    const demoCourses = (await listCourses(db, demo, {}, { limit: 100 })).data;
    assert.ok(!demoCourses.some((c) => c.slug === DEMO.courses.other));
    assert.ok((await listEnrollments(db, demo, {}, { limit: 100 })).data.every((e) => e.schoolId === demo));
  });
});
