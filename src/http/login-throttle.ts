/**
 * The sign-in limits (product.md §8) and the account lock they amount to:
 * one place that says what the counters are, so `/login` counts, operators see locks and unlock,
 * and a password reset clears them all with the same keys.
 */
import type { Throttle, ThrottleRule } from './throttle.ts';

// Failed sign-ins tolerated per account and per client address within 15 minutes.
export const ACCOUNT_FAILURE_LIMIT = 5;
export const IP_FAILURE_LIMIT = 50;
const LOGIN_WINDOW_SECONDS = 15 * 60;

/**
 * The per-account counter: an account is locked while it is full. `email` as stored (the domain's
 * `normalizeEmail`), so every caller names the same counter.
 */
function accountRule(email: string): ThrottleRule {
  return {
    key: `login:account:${email}`,
    limit: ACCOUNT_FAILURE_LIMIT,
    windowSeconds: LOGIN_WINDOW_SECONDS,
  };
}

/** The per-address counter: one network guessing at many accounts. */
function addressRule(address: string): ThrottleRule {
  return { key: `login:ip:${address}`, limit: IP_FAILURE_LIMIT, windowSeconds: LOGIN_WINDOW_SECONDS };
}

/** Both sign-in counters of an attempt, account first. */
export function loginRules(email: string, address: string): ThrottleRule[] {
  return [accountRule(email), addressRule(address)];
}

/** Seconds until the account may try again; 0 when it is not locked. */
export function accountLockedFor(throttle: Throttle, email: string): Promise<number> {
  return throttle.retryAfter([accountRule(email)]);
}

/** Forgets the account's failed sign-ins (operator unlock, password reset). */
export function unlockAccount(throttle: Throttle, email: string): Promise<void> {
  return throttle.reset(accountRule(email).key);
}
