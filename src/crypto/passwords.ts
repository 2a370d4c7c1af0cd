import { hash, verify } from '@node-rs/argon2';

// OWASP Password Storage Cheat Sheet: argon2id, m=19 MiB, t=2, p=1.
const STANDARD = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
// argon2id's smallest parameters, for test runs only (config refuses them in production).
const TEST = { memoryCost: 8, timeCost: 1, parallelism: 1 } as const;
let options: typeof STANDARD | typeof TEST = STANDARD;

/**
 * Sets the cost of the hashes this process makes (config's PASSWORD_HASH_COST, applied at
 * start-up). Verifying reads the cost from the hash itself, so hashes of either cost verify.
 */
export function setPasswordHashCost(cost: 'standard' | 'test'): void {
  options = cost === 'test' ? TEST : STANDARD;
}

// A fixed hash to verify against when the account does not exist, so timing does not tell.
let dummyHash: Promise<string> | undefined;

/** Every way an account gets a password (CLI, invitation, reset) takes 8 to 1024 characters. */
export const MIN_PASSWORD_LENGTH = 8;
// Longer ones are refused before hashing: argon2's cost grows with the input (login does the same).
export const MAX_PASSWORD_LENGTH = 1024;

/** Why a new password is refused, in words for the person choosing it; undefined when it is fine. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  // PostgreSQL text cannot hold NUL, and no sign-in form could send it back.
  if (password.includes('\u0000')) return 'must not contain a NUL character';
  return undefined;
}

/** argon2id hash of a password. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, options);
}

/** Verifies a password; a missing hash still costs one verification (no user enumeration). */
export async function verifyPassword(
  passwordHash: string | null | undefined,
  password: string,
): Promise<boolean> {
  if (!passwordHash) {
    dummyHash ??= hashPassword('lectern-timing-equaliser');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
