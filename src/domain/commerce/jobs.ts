import type { HousekeepingJob } from '../../store/housekeeping.ts';
import { recordSubscriptionPeriodEnds } from './subscription-periods.ts';

/**
 * Commerce's housekeeping: subscriptions canceled at their period end, and running ones gone past
 * due.
 */
export const jobs: readonly HousekeepingJob[] = [
  { name: 'subscriptions', run: async (db, now) => ({ ...(await recordSubscriptionPeriodEnds(db, now)) }) },
];
