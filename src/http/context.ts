import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../store/database.ts';
import type { RedisLink } from '../store/redis.ts';
import type { Metrics } from './metrics.ts';
import type { Throttle } from './throttle.ts';

/** What every feature sub-app is built from: passed in, never imported as a global. */
export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Rate limits (sign-in, registration): one per app, shared through Redis when configured. */
  readonly throttle: Throttle;
  /** The connection of `REDIS_URL`, when set. */
  readonly redis?: RedisLink;
}

/** Hono environment shared by the sub-apps. */
export interface AppEnv {
  Variables: {
    requestId: string;
  };
}
