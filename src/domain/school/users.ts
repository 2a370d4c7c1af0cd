import { newId } from '../../crypto/ids.ts';
import { problem } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { preparedRead } from '../../store/prepared.ts';
import { isoNow } from '../../store/time.ts';
import type { UsersTable } from '../kernel/tables.ts';

export type User = UsersTable;

/** Emails are compared and stored trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

// Read on every UserInfo and id_token: compiled once, a named statement on PostgreSQL.
const userById = preparedRead((db, arg) =>
  db
    .selectFrom('users')
    .select(['id', 'email', 'name', 'password_hash', 'unverified_school_id', 'created_at', 'updated_at'])
    .where('id', '=', arg(0)),
);

/** A user by id, or undefined. */
export async function findUserById(db: Db | Tx, id: string): Promise<User | undefined> {
  return (await userById(db, id))[0];
}

/** A user by email (case-insensitive), or undefined. */
export function findUserByEmail(db: Db | Tx, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', normalizeEmail(email)).executeTakeFirst();
}

/** What a new account is made of; `unverifiedSchoolId` for an account whose email is unproven. */
export interface NewUser {
  email: string;
  name: string;
  passwordHash: string | null;
  unverifiedSchoolId?: string | null;
}

function newUser(input: NewUser): User {
  const now = isoNow();
  return {
    id: newId('usr'),
    email: normalizeEmail(input.email),
    name: input.name.trim(),
    password_hash: input.passwordHash,
    unverified_school_id: input.unverifiedSchoolId ?? null,
    created_at: now,
    updated_at: now,
  };
}

// INSERT … ON CONFLICT DO NOTHING on the unique email: a concurrent insert of the same email is
// waited for (PostgreSQL) or already done (SQLite), never a unique-violation error.
async function insertUnlessTaken(db: Db | Tx, user: User): Promise<boolean> {
  const result = await db
    .insertInto('users')
    .values(user)
    .onConflict((oc) => oc.column('email').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Creates a user; a taken email is a 409 `email_taken`, even when taken by a concurrent request. */
export async function createUser(db: Db | Tx, input: NewUser): Promise<User> {
  const user = newUser(input);
  if (!(await insertUnlessTaken(db, user))) {
    throw problem('email_taken', {
      detail: 'A user with this email already exists.',
    });
  }
  return user;
}

/** Renames a user. */
export async function updateUserName(db: Db | Tx, id: string, name: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ name: name.trim(), updated_at: isoNow() })
    .where('id', '=', id)
    .execute();
}

/**
 * Whether the account may take part in this school: every account whose email is proven, and an
 * unproven one only at the school whose invitation link made it.
 */
export function trustedAt(user: Pick<User, 'unverified_school_id'>, schoolId: string): boolean {
  return user.unverified_school_id === null || user.unverified_school_id === schoolId;
}

/** The owner of the mailbox proved the email (a password reset, an invitation that reached it). */
export async function markEmailProven(db: Db | Tx, id: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ unverified_school_id: null, updated_at: isoNow() })
    .where('id', '=', id)
    .where('unverified_school_id', 'is not', null)
    .execute();
}

/**
 * The mailbox's owner takes over an account they could not sign in to (one made without a
 * password, or with a password someone else chose): their name and password, the email proven.
 * The caller ends every session and grant of the account in the same transaction.
 */
export async function takeOverAccount(
  db: Db | Tx,
  id: string,
  input: { name: string; passwordHash: string },
): Promise<void> {
  await db
    .updateTable('users')
    .set({
      name: input.name.trim(),
      password_hash: input.passwordHash,
      unverified_school_id: null,
      updated_at: isoNow(),
    })
    .where('id', '=', id)
    .execute();
}

/** Replaces a user's password hash (reset, change). */
export async function setUserPasswordHash(db: Db | Tx, id: string, passwordHash: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: passwordHash, updated_at: isoNow() })
    .where('id', '=', id)
    .execute();
}
