/**
 * When to try again (Standard Webhooks' suggested schedule): after the first attempt fails, wait
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h; after the tenth attempt the delivery
 * has failed. Each wait is jittered by ±10 % so endpoints recovering at once are not stampeded.
 */
const RETRY_SCHEDULE_SECONDS: readonly number[] = [
  5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400,
];

/** Attempts in all: the first, then one per step of the schedule. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length + 1;

/** The longest `Retry-After` honoured: a day, the schedule's last step. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * Milliseconds to wait after failed attempt number `attempts` (1-based), or undefined when no
 * attempt is left. `random` in [0, 1) picks the jitter.
 */
export function retryDelayMs(attempts: number, random: number = Math.random()): number | undefined {
  const base = RETRY_SCHEDULE_SECONDS[attempts - 1];
  if (base === undefined) return undefined;
  return Math.round(base * 1000 * (0.9 + 0.2 * random));
}

/**
 * A `Retry-After` value (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) as milliseconds from
 * `now`, within [1 s, 24 h]; undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  let ms: number;
  if (/^\d{1,10}$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(MAX_RETRY_AFTER_SECONDS * 1000, Math.max(1000, ms));
}
