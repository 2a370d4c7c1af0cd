import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { DEMO_PASSWORD, seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import type { Role } from '../../src/domain/school/roles.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import type { Db } from '../../src/store/database.ts';
import type { TestApp } from './app.ts';
import { issueTestToken } from './tokens.ts';

/**
 * The one test world: the demo seed of product.md §9 (Demo Academy and Other School with their
 * people, catalogue and community), with handles to the ids tests need, and fresh schools built
 * the same way for tests that need a school of their own. Every surface's data sets (the
 * admin, account and MCP scenes in world-resources.ts, world-account.ts and world-mcp.ts, the domain
 * contract fixture in world-domain.ts) build on the
 * handles and helpers here, so a school, a person and a token are made one way.
 */

/** A school, its owner, and helpers to add people and get tokens there. */
export interface SchoolFixture {
  readonly schoolId: string;
  readonly ownerId: string;
  /** An operator token of the owner with every operator scope (or the given ones). */
  token(scopes?: readonly string[], audience?: 'operator' | 'member', userId?: string): Promise<string>;
  /** A new user with the given roles at this school. */
  person(roles: readonly Role[], email?: string): Promise<string>;
}

/** A seeded school: its owner, lecturer and student, and its courses by their demo key. */
export interface SeededSchool extends SchoolFixture {
  readonly lecturerId: string;
  readonly studentId: string;
  /** Course ids by the keys of DEMO.courses that belong to this school. */
  readonly courseIds: Readonly<Record<string, string>>;
}

/** The demo seed's two schools; they never see each other's data. */
export interface World {
  readonly demo: SeededSchool;
  readonly other: SeededSchool;
  /** The password of every demo account. */
  readonly password: string;
  /** The id of a demo account by email (DEMO_ACCOUNTS). */
  userId(email: string): string;
}

let counter = 0;
/** Unique within the run (parallel test files share a PostgreSQL server, never a schema). */
const unique = () => `${++counter}-${Date.now().toString(36)}`;

/** A new user with `roles` at `schoolId` (through the domain functions, as production does). */
export async function addPerson(
  db: Db,
  schoolId: string,
  roles: readonly Role[],
  email = `p${unique()}@example.com`,
  name = `Person ${counter}`,
): Promise<string> {
  const user = await createUser(db, { email, name, passwordHash: null });
  await addRoles(db, schoolId, user.id, roles);
  return user.id;
}

/** Handles on an existing school and its owner. */
function schoolHandle(t: TestApp, schoolId: string, ownerId: string): SchoolFixture {
  return {
    schoolId,
    ownerId,
    person: (roles, email) => addPerson(t.runtime.db, schoolId, roles, email),
    token: async (scopes = OPERATOR_SCOPES, audience = 'operator', userId = ownerId) =>
      (await issueTestToken(t, { userId, schoolId, scopes, audience })).token,
  };
}

/** A fresh school with an owner, for tests that need one nobody else writes to. */
export async function schoolFixture(t: TestApp, name = 'School'): Promise<SchoolFixture> {
  const tag = unique();
  const school = await createSchool(t.runtime.db, { name: `${name} ${counter}`, subdomain: `school-${tag}` });
  return schoolHandle(t, school.id, await addPerson(t.runtime.db, school.id, ['owner']));
}

/** Seeds the demo data (once per app) and returns the world's handles. */
export async function createWorld(t: TestApp): Promise<World> {
  const db = t.runtime.db;
  await seedDemoData(db);
  const users = await db.selectFrom('users').select(['id', 'email']).execute();
  const ids = new Map(users.map((u) => [u.email, u.id]));
  const userId = (email: string) => {
    const id = ids.get(email);
    if (!id) throw new Error(`no demo account ${email}`);
    return id;
  };
  const school = async (subdomain: string, prefix: '' | 'other-') => {
    const row = await db
      .selectFrom('schools')
      .select('id')
      .where('subdomain', '=', subdomain)
      .executeTakeFirstOrThrow();
    const courses = await db
      .selectFrom('courses')
      .select(['id', 'slug'])
      .where('school_id', '=', row.id)
      .execute();
    const bySlug = new Map(courses.map((c) => [c.slug, c.id]));
    const courseIds = Object.fromEntries(
      Object.entries(DEMO.courses).flatMap(([key, slug]) =>
        bySlug.has(slug) ? [[key, bySlug.get(slug)!]] : [],
      ),
    );
    return {
      ...schoolHandle(t, row.id, userId(`${prefix}owner@example.com`)),
      lecturerId: userId(`${prefix}lecturer@example.com`),
      studentId: userId(`${prefix}student@example.com`),
      courseIds,
    };
  };
  return {
    demo: await school('demo', ''),
    other: await school('other', 'other-'),
    password: DEMO_PASSWORD,
    userId,
  };
}
