/**
 * Who may lift a member's sign-in lock. The lock guards an account, and an account is shared by
 * every school its person belongs to. A school's operator lifts it only for an account that
 * belongs to that school alone; any other account's lock is lifted by its owner (a password
 * reset, which proves the mailbox) or by time. Otherwise any school that got the person as a
 * member could keep disarming the lock that protects their standing at another school.
 */
import type { Db, Tx } from '../../store/database.ts';
import { belongsElsewhere } from './memberships.ts';

/** Why an operator of the school may not lift the lock: the account is also used at another school. */
export type LockLiftRefusal = 'belongs_elsewhere';

/**
 * Why an operator of `schoolId` may not lift the lock of `userId` (a member of it), or undefined
 * when they may. The console's page and the admin API (`members.unlock`) both ask this.
 */
export async function lockLiftRefusal(
  db: Db | Tx,
  schoolId: string,
  userId: string,
): Promise<LockLiftRefusal | undefined> {
  return (await belongsElsewhere(db, schoolId, userId)) ? 'belongs_elsewhere' : undefined;
}
