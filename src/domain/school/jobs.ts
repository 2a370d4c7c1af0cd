import type { HousekeepingJob } from '../../store/housekeeping.ts';
import { configuredFileStore } from './file-store.ts';
import { sweepOrphanFiles } from './storage-sweep.ts';

/** The school's housekeeping: the file store's objects no row names (storage-sweep.ts). */
export const jobs: readonly HousekeepingJob[] = [
  { name: 'storage', run: (db, now, config) => sweepOrphanFiles(db, configuredFileStore(config), now) },
];
