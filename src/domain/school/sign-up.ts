import { createHmac } from 'node:crypto';
import { MAX_PASSWORD_LENGTH, verifyPassword } from '../../crypto/passwords.ts';
import { open, seal } from '../../crypto/secret-box.ts';
import type { Db } from '../../store/database.ts';
import { withTransaction } from '../kernel/checks.ts';
import { ensureMembership } from './memberships.ts';
import { createUser, findUserByEmail, normalizeEmail, type User } from './users.ts';

/**
 * Sign-up at a school's site: who may, and what it makes. The answer to the person never says
 * whether the email already had an account (docs/security.md). No account exists until the mailed
 * link is pressed, with the password chosen at sign-up: the pending sign-up travels sealed inside
 * the link (docs/decisions.md), so an address nobody proved owns no password, and nobody can sign
 * in with one chosen for someone else's address (pre-account takeover).
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

/** How long a pending sign-up (its mailed link) can still be finished. */
const PENDING_SIGN_UP_SECONDS = 7 * 24 * 3600;

/** A sign-up waiting for its mailed link: everything the account will be made of. */
export interface PendingSignUp {
  readonly schoolId: string;
  readonly name: string;
  readonly email: string;
  readonly passwordHash: string;
  /** Milliseconds since the epoch. */
  readonly expires: number;
}

/** What a sign-up asks for: a sealed pending sign-up to mail, or the owner of the address told. */
export type SignUpOutcome =
  | { readonly kind: 'pending'; readonly email: string; readonly token: string }
  | { readonly kind: 'existing'; readonly user: User };

// AES-256-GCM under a key derived from LECTERN_SECRET for this use alone; the school is the
// associated data, so a link works only at the school it was made for.
function pendingKey(secret: Uint8Array): Buffer {
  return createHmac('sha256', secret).update('lectern pending sign-up v1').digest();
}
const boundTo = (schoolId: string) => `signup:${schoolId}`;

/**
 * Starts a sign-up: an email that has an account names it and changes nothing; any other gets
 * the sealed pending sign-up its link carries. Nothing is stored either way.
 */
export async function signUpAtSchool(
  deps: { readonly db: Db; readonly secret: Uint8Array; readonly now: number },
  schoolId: string,
  input: { readonly email: string; readonly name: string; readonly passwordHash: string },
): Promise<SignUpOutcome> {
  const existing = await findUserByEmail(deps.db, input.email);
  if (existing) return { kind: 'existing', user: existing };
  const email = normalizeEmail(input.email);
  const pending: PendingSignUp = {
    schoolId,
    name: input.name,
    email,
    passwordHash: input.passwordHash,
    expires: deps.now + PENDING_SIGN_UP_SECONDS * 1000,
  };
  return {
    kind: 'pending',
    email,
    token: seal(pendingKey(deps.secret), JSON.stringify(pending), boundTo(schoolId)),
  };
}

/** A pending sign-up's link read at a school: the sign-up, or why it cannot be finished. */
export type PendingRead =
  | { readonly ok: true; readonly pending: PendingSignUp }
  | { readonly ok: false; readonly reason: 'invalid' | 'expired' };

function isPending(value: unknown): value is PendingSignUp {
  const p = value as Record<string, unknown> | null;
  return (
    typeof p === 'object' &&
    p !== null &&
    ['schoolId', 'name', 'email', 'passwordHash'].every((k) => typeof p[k] === 'string') &&
    typeof p.expires === 'number'
  );
}

/** Opens a link's token at `schoolId`: forged, altered or another school's is 'invalid'. */
export function readPendingSignUp(
  secret: Uint8Array,
  now: number,
  schoolId: string,
  token: string,
): PendingRead {
  let value: unknown;
  try {
    value = token.length <= 4096 ? JSON.parse(open(pendingKey(secret), token, boundTo(schoolId))) : undefined;
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (!isPending(value) || value.schoolId !== schoolId) return { ok: false, reason: 'invalid' };
  if (value.expires < now) return { ok: false, reason: 'expired' };
  return { ok: true, pending: value };
}

/**
 * What pressing a link did: made the account, found the address taken (by an earlier press or
 * otherwise), or was refused because the presser did not give the password chosen at sign-up.
 */
export type FinishedSignUp =
  | { readonly kind: 'created'; readonly user: User }
  | { readonly kind: 'taken' }
  | { readonly kind: 'wrong_password' };

/**
 * Makes the account (its email proven by the link) and its student membership of the school,
 * once, for whoever also knows the password chosen at sign-up: the mailbox's owner pressing the
 * link of a sign-up someone else made for their address gets no account with that someone's
 * password. When the address has an account (an earlier press, a newer link, an invitation),
 * nothing changes.
 */
export async function finishSignUp(
  db: Db,
  pending: PendingSignUp,
  password: string,
): Promise<FinishedSignUp> {
  if (await findUserByEmail(db, pending.email)) return { kind: 'taken' };
  const known =
    password.length <= MAX_PASSWORD_LENGTH && (await verifyPassword(pending.passwordHash, password));
  if (!known) return { kind: 'wrong_password' };
  return withTransaction(db, async (tx) => {
    const user = await createUser(tx, {
      email: pending.email,
      name: pending.name,
      passwordHash: pending.passwordHash,
    });
    await ensureMembership(tx, pending.schoolId, user.id, ['student']);
    return { kind: 'created', user } as const;
  }).catch(async (err: unknown) => {
    // A concurrent press (or sign-up elsewhere) of the same email committed first.
    if (await findUserByEmail(db, pending.email)) return { kind: 'taken' } as const;
    throw err;
  });
}
