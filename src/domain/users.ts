import { newId } from '../crypto/ids.ts';
import { ProblemError } from '../errors/problem-error.ts';
import type { Db, Tx } from '../store/database.ts';
import { isoNow } from '../store/time.ts';
import type { UsersTable } from './tables.ts';

export type User = UsersTable;

/** Emails are compared and stored trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A user by id, or undefined. */
export function findUserById(db: Db | Tx, id: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A user by email (case-insensitive), or undefined. */
export function findUserByEmail(db: Db | Tx, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', normalizeEmail(email)).executeTakeFirst();
}

/** Creates a user; a taken email is a 409 `email_taken`. */
export async function createUser(
  db: Db | Tx,
  input: { email: string; name: string; passwordHash: string | null },
): Promise<User> {
  const email = normalizeEmail(input.email);
  if (await findUserByEmail(db, email)) {
    throw new ProblemError(409, 'email_taken', 'Conflict', {
      detail: 'A user with this email already exists.',
    });
  }
  const now = isoNow();
  const user: User = {
    id: newId('usr'),
    email,
    name: input.name.trim(),
    password_hash: input.passwordHash,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('users').values(user).execute();
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
