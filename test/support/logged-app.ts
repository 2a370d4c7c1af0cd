import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { openDatabase } from '../../src/store/database.ts';
import { TEST_BASE_URL, type TestApp } from './app.ts';
import { createTestDatabase } from './database.ts';

/** A test app whose log lines are kept (parsed), for tests of what Lectern logs. */
export interface LoggedTestApp extends TestApp {
  /** Every line logged so far, oldest first. */
  readonly logs: Array<Record<string, unknown>>;
}

/**
 * Like createTestApp, but logs at `debug` (unless `env` says otherwise) into memory through
 * openRuntime's `logDestination`, and builds the app after the runtime as `lectern serve` does.
 */
export async function createLoggedTestApp(env: Record<string, string> = {}): Promise<LoggedTestApp> {
  const database = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'debug',
    BASE_URL: TEST_BASE_URL,
    LECTERN_SECRET: randomBytes(32).toString('base64url'),
    FILES_DIR: `${database.dir}/files`,
    SEED_DEMO: 'false',
    ...database.env,
    ...env,
  });
  const logs: Array<Record<string, unknown>> = [];
  const logDestination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const runtime = await openRuntime(config, {
    db: openDatabase(database.options),
    logDestination,
    processMetrics: false,
  });
  const app = createApp(runtime);
  return {
    app,
    runtime,
    config,
    database,
    logs,
    request: async (path, init) => app.request(new URL(path, config.baseUrl).toString(), init),
    close: async () => {
      await runtime.close();
      await database.drop();
    },
  };
}
