import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

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
