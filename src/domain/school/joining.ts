/**
 * Joining a school through an invitation link, as the page asks it: the outcome or why not, as a
 * reason the page puts into words. The acceptance itself is invitations.ts's.
 */
import { ProblemError } from '../../errors/problem-error.ts';
import { type Db, inTransaction, type Tx } from '../../store/database.ts';
import {
  type Acceptance,
  acceptAsNewPerson,
  acceptInvitation,
  InvitationGoneError,
  UnprovenEmailError,
} from './invitation-acceptance.ts';
import { validPersonName } from './person-name.ts';

/** Why joining failed: the link closed meanwhile, the email has an account, or it is unproven. */
type JoiningRefusal = 'gone' | 'email_taken' | 'unproven';

/** A person joined, with how many sessions ended when the mailbox's owner took an account over. */
export type Joining =
  | { readonly ok: true; readonly acceptance: Acceptance; readonly endedSessions: number }
  | { readonly ok: false; readonly reason: JoiningRefusal };

function refusalOf(err: unknown): JoiningRefusal {
  if (err instanceof InvitationGoneError) return 'gone';
  if (err instanceof ProblemError && err.code === 'email_taken') return 'email_taken';
  if (err instanceof UnprovenEmailError) return 'unproven';
  throw err;
}

/**
 * Someone without a usable account joins with a name (the one name rule, person-name.ts) and a
 * password. When the mailbox's owner takes an existing account over, `endAccess` runs in the
 * same transaction as the new password (the caller revokes the account's grants and sessions
 * there and returns how many sessions ended), so nobody else's access outlives it.
 */
export async function joinAsNewPerson(
  db: Db,
  token: string,
  input: { email: string; name: string; passwordHash: string },
  endAccess: (tx: Tx, userId: string) => Promise<number>,
): Promise<Joining> {
  const name = validPersonName(input.name);
  try {
    return await inTransaction(db, async (tx) => {
      const acceptance = await acceptAsNewPerson(tx, token, { ...input, name });
      const endedSessions = acceptance.tookOver ? await endAccess(tx, acceptance.userId) : 0;
      return { ok: true, acceptance, endedSessions } as const;
    });
  } catch (err) {
    return { ok: false, reason: refusalOf(err) };
  }
}

/** A signed-in account joins: it must own the invited email (invitations.ts acceptInvitation). */
export async function joinSignedIn(
  db: Db,
  token: string,
  user: { id: string; email: string; unverified_school_id: string | null },
): Promise<Joining> {
  try {
    return { ok: true, acceptance: await acceptInvitation(db, token, user), endedSessions: 0 };
  } catch (err) {
    return { ok: false, reason: refusalOf(err) };
  }
}
