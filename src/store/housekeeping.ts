import type { Config } from '../config.ts';
import type { Db } from './database.ts';

/**
 * One housekeeping job: work that time makes due rather than a request (expiries, period ends,
 * pruning). Each feature declares its jobs in its own `jobs.ts` (a `jobs` list); the runtime
 * (background.ts) assembles them and runs each in turn every 15 minutes, on its clock.
 */
export interface HousekeepingJob {
  /** Names the job in the log and in what a run returns. */
  readonly name: string;
  /** Does the job once at `now`; how many rows each part of it changed (logged when any did). */
  run(db: Db, now: number, config: Config): Promise<Record<string, number>>;
}
