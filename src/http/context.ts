import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../store/database.ts';
import type { Metrics } from './metrics.ts';

/** What every feature sub-app is built from: passed in, never imported as a global. */
export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/** Hono environment shared by the sub-apps. */
export interface AppEnv {
  Variables: {
    requestId: string;
  };
}
