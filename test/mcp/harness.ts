import { createServer } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { listen, type RunningServer } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/** A Lectern listening on a real loopback port whose BASE_URL is that address (MCP clients speak HTTP). */
export interface LiveApp {
  readonly t: TestApp;
  readonly server: RunningServer;
  readonly baseUrl: string;
  readonly mcpUrl: URL;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Starts the app on 127.0.0.1 with BASE_URL equal to where it listens. */
export async function startLiveApp(
  env: Record<string, string> = {},
  options: Parameters<typeof createTestApp>[1] = {},
): Promise<LiveApp> {
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

/** An MCP client connected to the live app, with an optional bearer token; `modern` negotiates 2026-07-28. */
export async function connectClient(
  live: LiveApp,
  options: { token?: string; modern?: boolean } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: 'lectern-test', version: '1.0.0' },
    options.modern ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  const transport = new StreamableHTTPClientTransport(live.mcpUrl, {
    requestInit: options.token ? { headers: { Authorization: `Bearer ${options.token}` } } : undefined,
  });
  await client.connect(transport);
  return { client, transport };
}

/** Posts one raw JSON-RPC body to /mcp, as a 2025-era client would. */
export function postMcp(
  live: LiveApp,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(live.mcpUrl, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-11-25',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Reads a JSON-RPC answer whether it came as JSON or as one SSE `message` event. */
export async function readJsonRpc(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6));
    return JSON.parse(data[data.length - 1]);
  }
  return JSON.parse(text);
}
