import { Writable } from 'node:stream';
import { createTestApp, type TestApp } from './app.ts';

/** A test app whose log lines are kept (parsed), for tests of what Lectern logs. */
export interface LoggedTestApp extends TestApp {
  /** Every line logged so far, oldest first. */
  readonly logs: Array<Record<string, unknown>>;
}

/** createTestApp logging at `debug` (unless `env` says otherwise) into memory. */
export async function createLoggedTestApp(env: Record<string, string> = {}): Promise<LoggedTestApp> {
  const logs: Array<Record<string, unknown>> = [];
  const logDestination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const t = await createTestApp({ LOG_LEVEL: 'debug', ...env }, { logDestination });
  return { ...t, logs };
}
