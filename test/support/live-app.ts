import { listen, type RunningServer } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from './app.ts';
import { freePort } from './ports.ts';

/**
 * A Lectern listening on a real loopback port whose BASE_URL is that address: what MCP clients
 * and browsers need, since the issuer, redirect checks and cookies name the address they use.
 */
export interface LiveApp {
  readonly t: TestApp;
  readonly server: RunningServer;
  /** `http://127.0.0.1:<port>`, the app's BASE_URL and issuer. */
  readonly baseUrl: string;
  readonly mcpUrl: URL;
  /** Stops the server and closes the app. */
  close(): Promise<void>;
}

/** Starts the app on 127.0.0.1 with BASE_URL equal to where it listens (`env` on top). */
export async function startLiveApp(
  env: Record<string, string> = {},
  options: Parameters<typeof createTestApp>[1] = {},
): Promise<LiveApp> {
  // The port is free when asked and taken when listened on; another process can take it between.
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const t = await createTestApp({ BASE_URL: baseUrl, ...env }, options);
    try {
      const server = await listen(t.app, '127.0.0.1', port);
      return {
        t,
        server,
        baseUrl,
        mcpUrl: new URL('/mcp', baseUrl),
        close: async () => {
          await server.shutdown(1000);
          await t.close();
        },
      };
    } catch (err) {
      await t.close();
      if (attempt >= 3) throw err;
    }
  }
}
