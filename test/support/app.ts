import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import type { DestinationStream } from 'pino';
import { createApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import type { AppEnv } from '../../src/http/context.ts';
import type { CimdFetchOptions } from '../../src/oauth/clients/cimd-fetch.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import { openDatabase } from '../../src/store/database.ts';
import { createTestClock, type TestClock } from './clock.ts';
import { createMigratedTestDatabase, type TestDatabase } from './database.ts';

export const TEST_BASE_URL = 'http://lectern.test';

/** A migrated app on a fresh database, spoken to with `app.request()` (no sockets). */
export interface TestApp {
  readonly app: Hono<AppEnv>;
  readonly runtime: Runtime;
  readonly config: Config;
  readonly database: TestDatabase;
  /** The app's clock: the system's time until a test moves it (clock.ts). */
  readonly clock: TestClock;
  /** Sends a request to the app; relative paths are resolved against the base URL. */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Builds a test app; `env` overrides configuration (BASE_URL defaults to http://lectern.test,
 * LOG_LEVEL to silent). `cimdFetch`: how its metadata-document fetcher reaches a local test site;
 * `logDestination` receives the log lines (see logged-app.ts); `clock`: the app's clock (by
 * default a fresh TestClock, which is the system's time until a test moves it).
 */
export async function createTestApp(
  env: Record<string, string> = {},
  options: { cimdFetch?: CimdFetchOptions; logDestination?: DestinationStream; clock?: TestClock } = {},
): Promise<TestApp> {
  const database = await createMigratedTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    BASE_URL: TEST_BASE_URL,
    LECTERN_SECRET: randomBytes(32).toString('base64url'),
    FILES_DIR: `${database.dir}/files`,
    SEED_DEMO: 'false',
    // Production refuses the cheap hashes, and a test of production's behaviour gets its cost.
    ...(env.NODE_ENV === 'production' ? {} : { PASSWORD_HASH_COST: 'test' }),
    // A loaded test machine can hold a Redis answer past production's 300 ms, and the link would
    // then fail open and let a throttled attempt through; the outage tests set production's value.
    REDIS_COMMAND_TIMEOUT_MS: '5000',
    ...database.env,
    ...env,
  });
  const db = openDatabase(database.options);
  const clock = options.clock ?? createTestClock();
  const runtime = await openRuntime(config, {
    db,
    logDestination: options.logDestination,
    processMetrics: false,
    cimdFetch: options.cimdFetch,
    clock,
  });
  const app = createApp(runtime);
  return {
    app,
    runtime,
    config,
    database,
    clock,
    request: async (path, init) => app.request(new URL(path, config.baseUrl).toString(), init),
    close: async () => {
      await runtime.close();
      await database.drop();
    },
  };
}
