import { type Clock, currentWorkScope, runInWorkScope } from './work-scope.ts';

export type { Clock } from './work-scope.ts';

/** The system's clock: what every process runs on unless a test hands the runtime another. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

// The clock of the work in progress, bound per call chain (each request by http/envelope.ts, the
// runtime's own work by runtime.ts and main.ts) in the work's scope (work-scope.ts). Expiry,
// lifetimes and windows read it through nowMs(), so no domain function takes a clock parameter
// and nothing here is a settable global: a clock is only ever in effect inside the work it was
// bound to.

/** Runs `work` (and everything it awaits or schedules) on `clock`; the event scope stays. */
export function withClock<T>(clock: Clock, work: () => T): T {
  return runInWorkScope({ clock, event: currentWorkScope()?.event }, work);
}

/** The current time in epoch milliseconds on the clock bound to this work (the system's if none). */
export function nowMs(): number {
  return (currentWorkScope()?.clock ?? systemClock).now();
}

/** Timestamps are stored as ISO 8601 UTC text with milliseconds, so they sort as text. */
export function isoNow(now: number = nowMs()): string {
  return new Date(now).toISOString();
}

/** The ISO timestamp `seconds` from now (negative for the past). */
export function isoIn(seconds: number, now: number = nowMs()): string {
  return new Date(now + seconds * 1000).toISOString();
}
