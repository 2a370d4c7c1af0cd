import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { withTransaction } from '../kernel/checks.ts';
import { ensureMembership } from './memberships.ts';
import { createUser, findUserByEmail, type User } from './users.ts';

/**
 * Sign-up at a school's site: who may, and what it makes. The answer to the person never says
 * whether the email already had an account (docs/security.md): a new address gets an account
 * whose email a mailed link confirms, an existing one's owner gets a mail instead.
 */

/** Why a school's site takes no sign-up. */
type SignUpRefusal =
  /** The school closed it (`schools.signup_open`). */
  | 'closed'
  /**
   * This deployment sends no email (no SMTP_URL): nothing could confirm the address, and
   * signing the person in at once would tell a new address from a taken one.
   */
  | 'no_mail';

export type SignUpDecision = { readonly ok: true } | { readonly ok: false; readonly reason: SignUpRefusal };

/** Whether the school's site takes sign-ups, and if not, why. */
export function signUpAvailability(
  school: { readonly signupOpen: boolean },
  mailEnabled: boolean,
): SignUpDecision {
  if (!school.signupOpen) return { ok: false, reason: 'closed' };
  if (!mailEnabled) return { ok: false, reason: 'no_mail' };
  return { ok: true };
}

/** What a sign-up did: made an account, or found the email taken (the person is told neither). */
export type SignUpOutcome =
  | { readonly kind: 'created'; readonly user: User }
  | { readonly kind: 'existing'; readonly user: User };

/**
 * Makes an account and a student membership of the school, the email trusted at this school only
 * until proven; an email that has an account (even one made a moment ago by a concurrent request)
 * changes nothing and names that account.
 */
export async function signUpAtSchool(
  db: Db,
  schoolId: string,
  input: { readonly email: string; readonly name: string; readonly passwordHash: string },
): Promise<SignUpOutcome> {
  const existing = await findUserByEmail(db, input.email);
  if (existing) return { kind: 'existing', user: existing };
  const made = await withTransaction(db, async (tx) => {
    const taken = await findUserByEmail(tx, input.email);
    if (taken) return { kind: 'existing', user: taken } as const;
    const user = await createUser(tx, { ...input, unverifiedSchoolId: schoolId });
    await ensureMembership(tx, schoolId, user.id, ['student']);
    return { kind: 'created', user } as const;
  }).catch(async (err: unknown) => {
    // A concurrent sign-up of the same email committed first: it is the existing account.
    const taken = await findUserByEmail(db, input.email);
    if (taken) return { kind: 'existing', user: taken } as const;
    throw err;
  });
  return made;
}

/**
 * Proves the email of an account made by sign-up, once: true when this call proved it (the
 * confirmation link then signs the person in), false when it was already proven.
 */
export async function confirmSignUpEmail(db: Db | Tx, userId: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ unverified_school_id: null, updated_at: isoNow() })
    .where('id', '=', userId)
    .where('unverified_school_id', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
