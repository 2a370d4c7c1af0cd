import assert from 'node:assert/strict';
import {
  auth as authV2,
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  UnauthorizedError as UnauthorizedV2,
} from '@modelcontextprotocol/client';
import {
  auth as authV1,
  UnauthorizedError as UnauthorizedV1,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BrowserPlayingProvider } from './oauth-agent.ts';

/** A tool result as both SDK generations return it. */
export interface ToolResult {
  readonly isError?: boolean;
  readonly content?: unknown;
  readonly structuredContent?: Record<string, unknown>;
}

/** One connected MCP client of either generation, with the SDK's own OAuth handling. */
interface SdkSession {
  listTools(): Promise<string[]>;
  /** Calls a tool; when the SDK stops for the user's browser, finishes the redirect and calls again. */
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

/** What a test needs of an SDK generation: its exported `auth()` and a connected client. */
export interface McpSdk {
  readonly name: 'v1 (@modelcontextprotocol/sdk 1.32)' | 'v2 (@modelcontextprotocol/client 2.4)';
  /** The SDK's exported `auth(provider, { serverUrl })`: what hosts call to sign in up front. */
  auth(
    provider: BrowserPlayingProvider,
    serverUrl: URL,
    callback?: URLSearchParams,
    scope?: string,
  ): Promise<string>;
  connect(serverUrl: URL, provider: BrowserPlayingProvider): Promise<SdkSession>;
}

// The provider implements both generations' OAuthClientProvider; their declared types differ only
// in nominal details, so it is handed to each as its own.
// biome-ignore lint/suspicious/noExplicitAny: see above
type AnyProvider = any;

export const V1: McpSdk = {
  name: 'v1 (@modelcontextprotocol/sdk 1.32)',
  auth: (provider, serverUrl, callback, scope) =>
    authV1(provider as AnyProvider, {
      serverUrl,
      authorizationCode: callback?.get('code') ?? undefined,
      scope,
    }),
  async connect(serverUrl, provider) {
    const transport = new TransportV1(serverUrl, { authProvider: provider as AnyProvider });
    const client = new ClientV1({ name: 'journey-v1', version: '1.0.0' });
    await client.connect(transport as AnyProvider);
    const retry = async <T>(run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (err) {
        if (!(err instanceof UnauthorizedV1)) throw err;
        await transport.finishAuth(provider.takeCallback().get('code')!);
        return run();
      }
    };
    return {
      listTools: async () => (await client.listTools()).tools.map((t) => t.name),
      call: (name, args = {}) =>
        retry(() => client.callTool({ name, arguments: args }) as Promise<ToolResult>),
      close: () => client.close(),
    };
  },
};

export const V2: McpSdk = {
  name: 'v2 (@modelcontextprotocol/client 2.4)',
  auth: (provider, serverUrl, callback, scope) =>
    authV2(provider as AnyProvider, {
      serverUrl,
      scope,
      authorizationCode: callback?.get('code') ?? undefined,
      iss: callback?.get('iss') ?? undefined,
    }),
  async connect(serverUrl, provider) {
    const transport = new TransportV2(serverUrl, { authProvider: provider as AnyProvider });
    const client = new ClientV2(
      { name: 'journey-v2', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(transport);
    const retry = async <T>(run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (err) {
        assert.ok(err instanceof UnauthorizedV2, `expected the SDK to ask for authorization, got ${err}`);
        await transport.finishAuth(provider.takeCallback());
        return run();
      }
    };
    return {
      listTools: async () => (await client.listTools()).tools.map((t) => t.name),
      call: (name, args = {}) =>
        retry(() => client.callTool({ name, arguments: args }) as Promise<ToolResult>),
      close: () => client.close(),
    };
  },
};
