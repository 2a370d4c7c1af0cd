import { hashPassword } from '../../crypto/passwords.ts';
import { type Db, inTransaction, type Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { isUniqueViolation } from '../kernel/checks.ts';
import { addRoles } from '../school/memberships.ts';
import { createSchool, findSchoolBySubdomain, setBetaFeature } from '../school/schools.ts';
import { createUser } from '../school/users.ts';
import { seedDemoCatalogue } from './demo-catalogue.ts';

export const DEMO_PASSWORD = 'demo-password';
export const DEMO_MEMBER_APP_ID = 'demo-member-app';
/** The demo sign-ins seedIdentity creates, for the start-up log (never with the password). */
export const DEMO_ACCOUNTS = [
  'owner@example.com',
  'lecturer@example.com',
  'student@example.com',
  'other-owner@example.com',
  'other-lecturer@example.com',
  'other-student@example.com',
] as const;

/** What the demo seed created, for the courses/commerce part to build on. */
interface DemoIdentity {
  demoSchoolId: string;
  otherSchoolId: string;
  ownerId: string;
  lecturerId: string;
  studentId: string;
  otherOwnerId: string;
  otherLecturerId: string;
  otherStudentId: string;
}

/**
 * Demo data of product.md §9, created once: a second call finds Demo Academy and adds nothing.
 * Never run in production (config refuses SEED_DEMO there).
 */
export async function seedDemoData(db: Db): Promise<{ created: boolean }> {
  if (await findSchoolBySubdomain(db, 'demo')) return { created: false };
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  try {
    return await inTransaction(db, async (tx) => {
      // Re-checked inside the transaction: two instances starting together seed once.
      if (await findSchoolBySubdomain(tx, 'demo')) return { created: false };
      const identity = await seedIdentity(tx, passwordHash);
      await seedMemberApp(tx, identity.demoSchoolId, identity.ownerId);
      await seedDemoCatalogue(tx, identity);
      return { created: true };
    });
  } catch (err) {
    // On PostgreSQL a concurrent seeder's commit surfaces here as a unique violation.
    if (isUniqueViolation(err) && (await findSchoolBySubdomain(db, 'demo'))) return { created: false };
    throw err;
  }
}

async function seedIdentity(tx: Tx, passwordHash: string): Promise<DemoIdentity> {
  const demo = await createSchool(tx, {
    name: 'Demo Academy',
    subdomain: 'demo',
    currency: 'USD',
    contactEmail: 'owner@example.com',
  });
  const other = await createSchool(tx, {
    name: 'Other School',
    subdomain: 'other',
    currency: 'EUR',
    locale: 'de',
    timezone: 'Europe/Berlin',
  });
  await setBetaFeature(tx, demo.id, 'mcp_connections', true);
  const owner = await createUser(tx, { email: 'owner@example.com', name: 'Olivia Owner', passwordHash });
  const lecturer = await createUser(tx, {
    email: 'lecturer@example.com',
    name: 'Leo Lecturer',
    passwordHash,
  });
  const student = await createUser(tx, { email: 'student@example.com', name: 'Sam Student', passwordHash });
  await addRoles(tx, demo.id, owner.id, ['owner']);
  await addRoles(tx, demo.id, lecturer.id, ['lecturer']);
  await addRoles(tx, demo.id, student.id, ['student']);
  // Other School has its own people, so isolation tests have something not to see.
  const otherOwner = await createUser(tx, {
    email: 'other-owner@example.com',
    name: 'Otto Owner',
    passwordHash,
  });
  const otherLecturer = await createUser(tx, {
    email: 'other-lecturer@example.com',
    name: 'Olga Other',
    passwordHash,
  });
  const otherStudent = await createUser(tx, {
    email: 'other-student@example.com',
    name: 'Oskar Student',
    passwordHash,
  });
  await addRoles(tx, other.id, otherOwner.id, ['owner']);
  await addRoles(tx, other.id, otherLecturer.id, ['lecturer']);
  await addRoles(tx, other.id, otherStudent.id, ['student']);
  return {
    demoSchoolId: demo.id,
    otherSchoolId: other.id,
    ownerId: owner.id,
    lecturerId: lecturer.id,
    studentId: student.id,
    otherOwnerId: otherOwner.id,
    otherLecturerId: otherLecturer.id,
    otherStudentId: otherStudent.id,
  };
}

async function seedMemberApp(tx: Tx, schoolId: string, ownerId: string): Promise<void> {
  const now = isoNow();
  await tx
    .insertInto('oauth_clients')
    .values({
      id: DEMO_MEMBER_APP_ID,
      kind: 'member',
      name: 'Demo Member App',
      school_id: schoolId,
      token_endpoint_auth_method: 'none',
      secret_hash: null,
      redirect_uris: JSON.stringify(['http://127.0.0.1/callback']),
      allowed_scopes: 'openid profile email account:read account:write',
      application_type: 'native',
      metadata: JSON.stringify({ client_name: 'Demo Member App' }),
      reviewed: 1,
      metadata_fetched_at: null,
      metadata_expires_at: null,
      created_by_user_id: ownerId,
      secret_rotated_at: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}
