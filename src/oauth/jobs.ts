import type { HousekeepingJob } from '../store/housekeeping.ts';
import { purgeExpired } from './grants/housekeeping.ts';

/** The authorization server's housekeeping: long-expired codes, tokens, sessions and reset links. */
export const jobs: readonly HousekeepingJob[] = [
  { name: 'oauth', run: async (db, now) => ({ ...(await purgeExpired(db, now)) }) },
];
