import type { HousekeepingJob } from '../../store/housekeeping.ts';
import { recordExpiredEnrollments } from './enrollment-expiry.ts';

/** Learning's housekeeping: the enrollments whose access ended since the last run. */
export const jobs: readonly HousekeepingJob[] = [
  { name: 'enrollments', run: async (db, now) => ({ expired: await recordExpiredEnrollments(db, now) }) },
];
