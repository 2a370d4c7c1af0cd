/**
 * Sign-in locks of a school's members: an account is locked while its failed sign-ins fill the
 * per-account counter (http/login-throttle.ts). Operators list who is locked and unlock someone;
 * only their own school's members are found (another school's member is a 404 like an unknown
 * id), so the lock state of anyone else is never told.
 * Who may lift a lock is domain/school/lock-lifting.ts.
 */
import { z } from 'zod';
import { type LockLiftRefusal, lockLiftRefusal } from '../../domain/school/lock-lifting.ts';
import { getMember, listMembers, type Member } from '../../domain/school/members-admin.ts';
import { problem } from '../../errors/problem-error.ts';
import type { AppContext } from '../../http/context.ts';
import { accountLockedFor, unlockAccount } from '../../http/login-throttle.ts';
import { logSecurityEvent } from '../../http/security-log.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoIn } from '../../store/time.ts';
import { defineOperation } from '../define-operation.ts';
import { Id, named, Timestamp } from '../schemas.ts';

/** A member's lock state. */
export interface MemberLock {
  readonly member: Member;
  /** Seconds until the account may sign in again; 0 when it is not locked. */
  readonly retryAfterSeconds: number;
  /** When signing in is possible again; null when it is not locked. */
  readonly lockedUntil: string | null;
  /** Why this school's operators may not lift the lock (only its owner can), if they may not. */
  readonly refusal: LockLiftRefusal | undefined;
}

// A scan of the whole school asks the throttle once per member: bounded, so one request cannot
// cost without limit (100 pages of 100).
const SCAN_PAGES = 100;

async function lockOf(app: AppContext, db: Db | Tx, schoolId: string, member: Member): Promise<MemberLock> {
  const retryAfterSeconds = await accountLockedFor(app.throttle, member.email);
  const lockedUntil = retryAfterSeconds > 0 ? isoIn(retryAfterSeconds) : null;
  const refusal = await lockLiftRefusal(db, schoolId, member.userId);
  return { member, retryAfterSeconds, lockedUntil, refusal };
}

/** The school's members who are locked out now, oldest membership first. */
export async function lockedMembers(app: AppContext, db: Db | Tx, schoolId: string): Promise<MemberLock[]> {
  const locked: MemberLock[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < SCAN_PAGES; page++) {
    const members = await listMembers(db, schoolId, {}, { limit: 100, cursor });
    const locks = await Promise.all(
      members.data.map(async (m) => ({
        member: m,
        retryAfterSeconds: await accountLockedFor(app.throttle, m.email),
      })),
    );
    for (const l of locks) {
      if (l.retryAfterSeconds > 0) locked.push(await lockOf(app, db, schoolId, l.member));
    }
    if (!members.next_cursor) break;
    cursor = members.next_cursor;
  }
  return locked;
}

/** One member's lock state (404 when the id is not a member of this school). */
async function memberLock(
  app: AppContext,
  db: Db | Tx,
  schoolId: string,
  memberId: string,
): Promise<MemberLock> {
  return lockOf(app, db, schoolId, await getMember(db, schoolId, memberId));
}

/** Lifts a member's lock (clears their failed sign-ins) and logs who did it. */
export async function unlockMember(
  app: AppContext,
  db: Db | Tx,
  who: { schoolId: string; actorUserId: string; clientId?: string | null; requestId?: string },
  memberId: string,
): Promise<MemberLock> {
  const lock = await lockOf(app, db, who.schoolId, await getMember(db, who.schoolId, memberId));
  const { member } = lock;
  if (lock.refusal === 'belongs_elsewhere') {
    throw problem('unlock_not_allowed', {
      detail:
        'This person’s account is also used outside this school, so only they can lift the lock: by resetting their password (“Forgot password?” on the sign-in page) or by waiting until it ends.',
    });
  }
  await unlockAccount(app.throttle, member.email);
  logSecurityEvent(app.logger, 'account.unlocked', {
    ...who,
    userId: member.userId,
    wasLocked: lock.retryAfterSeconds > 0,
  });
  return { ...lock, retryAfterSeconds: 0, lockedUntil: null };
}

const MemberLockSchema = named(
  'MemberLock',
  z.object({
    member_id: Id.describe('The membership id.'),
    user_id: Id,
    email: z.string(),
    name: z.string(),
    locked: z.boolean().describe('True while too many failed sign-ins keep the person from signing in.'),
    locked_until: Timestamp.nullable().describe('When signing in is possible again; null when not locked.'),
    can_unlock: z
      .boolean()
      .describe(
        'False when the account also belongs to another school: only its owner lifts the lock (password reset), or it ends by itself.',
      ),
  }),
  'Whether a member is locked out of signing in after repeated failed attempts.',
);

function present(lock: MemberLock): z.output<typeof MemberLockSchema> {
  const locked = lock.retryAfterSeconds > 0;
  return {
    member_id: lock.member.id,
    user_id: lock.member.userId,
    email: lock.member.email,
    name: lock.member.name,
    locked,
    locked_until: locked ? lock.lockedUntil : null,
    can_unlock: lock.refusal === undefined,
  };
}

const ById = z.strictObject({ member_id: Id });
const example = {
  member_id: 'mem_01jf3k6m2v8w9x0y1z2a3b4c5d',
  user_id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d',
  email: 'ada@example.com',
  name: 'Ada',
  locked: true,
  locked_until: '2026-03-01T09:15:00.000Z',
  can_unlock: true,
};

/** List locked members, read one member's lock, unlock. */
export const memberLockOperations = [
  defineOperation({
    name: 'members.list_locked',
    summary: 'List locked members',
    description:
      'Members who cannot sign in now because of repeated failed sign-ins (5 within 15 minutes lock an account until the oldest leaves the window). Not paged: locks are few and short-lived.',
    scope: 'members:read',
    method: 'GET',
    path: '/api/v1/member-locks',
    input: {},
    output: z.object({ data: z.array(MemberLockSchema) }),
    examples: { response: { data: [example] } },
    handler: async (ctx) => ({
      data: (await lockedMembers(ctx.app, ctx.db, ctx.schoolId)).map(present),
    }),
  }),
  defineOperation({
    name: 'members.get_lock',
    summary: 'Get a member’s sign-in lock',
    scope: 'members:read',
    method: 'GET',
    path: '/api/v1/members/{member_id}/lock',
    input: { params: ById },
    output: MemberLockSchema,
    examples: { response: example },
    handler: async (ctx, { params }) =>
      present(await memberLock(ctx.app, ctx.db, ctx.schoolId, params.member_id)),
  }),
  defineOperation({
    name: 'members.unlock',
    summary: 'Unlock a member',
    description:
      'Clears the member’s failed sign-ins so they can sign in at once. Only for an account that belongs to this school alone: an account also used at another school is a 403 `unlock_not_allowed` (its owner resets the password, or the lock ends by itself). Unlocking someone who is not locked changes nothing. Another school’s member is a 404.',
    scope: 'members:write',
    method: 'POST',
    path: '/api/v1/members/{member_id}/unlock',
    input: { params: ById },
    output: MemberLockSchema,
    annotations: { idempotent: true },
    examples: { response: { ...example, locked: false, locked_until: null } },
    handler: async (ctx, { params }) =>
      present(
        await unlockMember(
          ctx.app,
          ctx.db,
          {
            schoolId: ctx.schoolId,
            actorUserId: ctx.principal.userId,
            clientId: ctx.principal.clientId || null,
          },
          params.member_id,
        ),
      ),
  }),
];
