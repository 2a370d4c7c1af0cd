import { addRoles } from '../../src/domain/school/memberships.ts';
import type { Role } from '../../src/domain/school/roles.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import type { TestApp } from '../support/app.ts';
import { issueTestToken } from '../support/tokens.ts';

let counter = 0;

/** A school with an owner, and a helper to get tokens for people there. */
export interface SchoolFixture {
  readonly schoolId: string;
  readonly ownerId: string;
  /** An operator token of the owner with every operator scope (or the given ones). */
  token(scopes?: readonly string[], audience?: 'operator' | 'member', userId?: string): Promise<string>;
  /** A new user with the given roles at this school. */
  person(roles: readonly Role[], email?: string): Promise<string>;
}

/** Creates a school and its owner. */
export async function schoolFixture(t: TestApp, name = 'School'): Promise<SchoolFixture> {
  const db = t.runtime.db;
  const n = ++counter;
  const school = await createSchool(db, {
    name: `${name} ${n}`,
    subdomain: `school-${n}-${Date.now().toString(36)}`,
  });
  const person = async (roles: readonly Role[], email?: string) => {
    const user = await createUser(db, {
      email: email ?? `p${++counter}-${Date.now().toString(36)}@example.com`,
      name: `Person ${counter}`,
      passwordHash: null,
    });
    await addRoles(db, school.id, user.id, roles);
    return user.id;
  };
  const ownerId = await person(['owner']);
  return {
    schoolId: school.id,
    ownerId,
    person,
    token: async (scopes = OPERATOR_SCOPES, audience = 'operator', userId = ownerId) =>
      (await issueTestToken(t, { userId, schoolId: school.id, scopes, audience })).token,
  };
}

/** Request helper: JSON in, bearer token, returns status, headers and parsed body. */
export function api(t: TestApp, token: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await t.request(path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    return { status: res.status, headers: res.headers, body: json };
  };
}
