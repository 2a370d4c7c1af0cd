import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import type { LiveApp } from '../support/live-app.ts';

export { type LiveApp, startLiveApp } from '../support/live-app.ts';

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

/** A connected client of one SDK generation: the server's instructions, its tools, a call. */
export interface SdkSession {
  readonly instructions: string | undefined;
  readonly tools: unknown[];
  call(name: string, args: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Both SDK generations, each connecting to `url` as `<clientName>-v1` or `-v2` (v2 negotiating
 * the version), anonymously or with a bearer token, and listing the tools.
 */
export const SDK_GENERATIONS: Record<
  string,
  (url: URL, clientName: string, token?: string) => Promise<SdkSession>
> = {
  'v1 (@modelcontextprotocol/sdk)': async (url, clientName, token) => {
    const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
    const client = new ClientV1({ name: `${clientName}-v1`, version: '1.0.0' });
    await client.connect(new TransportV1(url, { requestInit }));
    return {
      instructions: client.getInstructions(),
      tools: (await client.listTools()).tools,
      call: (name, args) => client.callTool({ name, arguments: args }),
      close: () => client.close(),
    };
  },
  'v2 (@modelcontextprotocol/client)': async (url, clientName, token) => {
    const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
    const client = new Client(
      { name: `${clientName}-v2`, version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
    return {
      instructions: client.getInstructions(),
      tools: (await client.listTools()).tools,
      call: (name, args) => client.callTool({ name, arguments: args }),
      close: () => client.close(),
    };
  },
};
