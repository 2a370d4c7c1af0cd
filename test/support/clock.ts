import { type Clock, withClock } from '../../src/store/time.ts';

/**
 * A clock a test moves instead of rewriting timestamps in rows: it runs with the system's time
 * plus an offset, so everything a test does not move behaves as in production, and `advance`
 * or `set` jump it (never back past what a test already relied on, unless it says so).
 */
export interface TestClock extends Clock {
  /** Moves the clock forward by `ms` (negative to go back). */
  advance(ms: number): void;
  /** Moves the clock to the ISO 8601 instant `iso`, from where it keeps running. */
  set(iso: string): void;
  /** The current instant as ISO 8601 text (what the store writes). */
  iso(): string;
  /**
   * Runs `work` with the clock `ms` ahead, then brings it back (a shared app stays in the
   * present). The work runs on this clock, so services called directly (not through a request)
   * read it too.
   */
  travel<T>(ms: number, work: () => Promise<T>): Promise<T>;
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** A running clock starting at the system's time (or at `start`, an ISO 8601 instant). */
export function createTestClock(start?: string): TestClock {
  let offset = 0;
  const clock: TestClock = {
    now: () => Date.now() + offset,
    advance: (ms) => {
      offset += ms;
    },
    set: (iso) => {
      const at = Date.parse(iso);
      if (Number.isNaN(at)) throw new Error(`not an ISO 8601 instant: ${iso}`);
      offset = at - Date.now();
    },
    iso: () => new Date(clock.now()).toISOString(),
    travel: async (ms, work) => {
      offset += ms;
      try {
        return await withClock(clock, work);
      } finally {
        offset -= ms;
      }
    },
  };
  if (start !== undefined) clock.set(start);
  return clock;
}
