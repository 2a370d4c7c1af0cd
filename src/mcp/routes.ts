import { type AuthInfo, createMcpHandler, isJsonContentType } from '@modelcontextprotocol/server';
import { type Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { type BearerRefusal, challengeHeaders, renderRefusals } from '../errors/refusal.ts';
import type { AppContext, AppEnv } from '../http/context.ts';
import { resourceMetadataUrl } from '../oauth/metadata/resource-param.ts';
import { MCP_CHALLENGE_SCOPES } from '../oauth/scopes.ts';
import { bearerStep } from '../resource/middleware.ts';
import type { Principal } from '../resource/principal.ts';
import { mcpTools } from './all-tools.ts';
import { createToolCatalogue } from './catalogue.ts';
import { createFastPath } from './fast-path.ts';
import { gateToolCalls, type JsonRpcId, ToolCallRefusal } from './gate.ts';
import { originRefusal } from './origin.ts';
import { versionRefusal } from './protocol-version.ts';
import { buildServer } from './server.ts';
import type { AnyMcpTool } from './tool.ts';

const PATH = '/mcp';

/** JSON-RPC error codes used at the HTTP layer (JSON-RPC 2.0 §5.1; -32001.. are server-defined). */
const PARSE_ERROR = -32700;
const UNAUTHORIZED = -32001;
const FORBIDDEN = -32003;

function jsonRpcError(
  c: Context,
  status: 400 | 401 | 403,
  id: JsonRpcId,
  code: number,
  message: string,
  data?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Response {
  return c.json({ jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } }, status, {
    'Cache-Control': 'no-store',
    ...headers,
  });
}

function refuse(c: Context, refusal: BearerRefusal, id: JsonRpcId): Response {
  return jsonRpcError(
    c,
    refusal.status,
    id,
    refusal.status === 401 ? UNAUTHORIZED : FORBIDDEN,
    refusal.description,
    { error: refusal.error, ...(refusal.scope ? { scope: refusal.scope } : {}) },
    challengeHeaders(refusal),
  );
}

/** The verified token as the SDK carries it; the principal rides in `extra`. */
function authInfoOf(principal: Principal): AuthInfo {
  return {
    token: principal.tokenHash,
    clientId: principal.clientId,
    scopes: [...principal.scopes],
    expiresAt: principal.expiresAt,
    resource: new URL(principal.resource),
    extra: { principal },
  };
}

/** How the endpoint is built; the default is what production runs. */
export interface McpAppOptions {
  /**
   * false: every request goes through the SDK's handler, never the fast path (fast-path.ts). For
   * the golden tests that compare the two answers; no request header can choose it.
   */
  readonly fastPath?: boolean;
}

/**
 * `/mcp`: MCP Streamable HTTP through the official SDK's per-request handler — the 2026-07-28
 * revision for clients that negotiate it, and stateless serving of the 2025 revisions (up to
 * 2025-11-25) for the rest; no sessions, so GET and DELETE answer 405 (docs/decisions.md).
 * Order: CORS preflight, Origin, bearer token, per-tool scope gate, then the fast path for the
 * single requests it is sure of (tools/call, tools/list, ping; fast-path.ts), else the SDK. The
 * bearer step and the gate throw their refusals; `onError` answers them as JSON-RPC errors.
 */
export function createMcpApp(ctx: AppContext, options: McpAppOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { baseUrl } = ctx.config;
  // The MCP endpoint's own resource (RFC 9728 §3.3): its challenges point at its metadata.
  const metadataUrl = resourceMetadataUrl(baseUrl, '/mcp');
  // No header is anonymous; any header that fails is not (spec §4.7, product.md §6).
  const authenticate = bearerStep(ctx, {
    challengeScopes: MCP_CHALLENGE_SCOPES,
    resource: '/mcp',
    anonymous: true,
  });
  const catalogue = createToolCatalogue(mcpTools());
  const fastPath = options.fastPath === false ? undefined : createFastPath(ctx, catalogue);
  // What the route decided for a request, handed to the SDK's server factory.
  const decided = new WeakMap<Request, AnyMcpTool[]>();
  const handler = createMcpHandler(
    ({ authInfo, requestInfo }) => {
      const principal = (authInfo?.extra?.principal as Principal | undefined) ?? null;
      const tools = (requestInfo && decided.get(requestInfo)) ?? catalogue.visibleTo(principal);
      return buildServer(ctx, principal, tools);
    },
    {
      maxRequestBodySize: ctx.config.bodyLimitBytes,
      onerror: (err) => ctx.logger.debug({ err }, 'mcp request rejected'),
    },
  );

  // A refusal of the token or of a tool call is a JSON-RPC error with the RFC 6750 challenge.
  app.onError(
    renderRefusals((c, refusal, thrown) =>
      refuse(c, refusal, thrown instanceof ToolCallRefusal ? thrown.id : null),
    ),
  );

  // Browser MCP clients: answered before auth; `*` is safe because no cookies are involved.
  app.use(
    PATH,
    cors({
      origin: '*',
      allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      allowHeaders: [
        'Authorization',
        'Content-Type',
        'Accept',
        'Mcp-Session-Id',
        'Mcp-Protocol-Version',
        'Mcp-Method',
        'Mcp-Name',
        'Last-Event-ID',
      ],
      exposeHeaders: ['WWW-Authenticate', 'Mcp-Session-Id', 'Mcp-Protocol-Version'],
      maxAge: 86400,
    }),
  );

  app.all(PATH, async (c) => {
    const badOrigin = originRefusal(c.req.header('origin'), c.req.header('host'), baseUrl);
    if (badOrigin) return jsonRpcError(c, 403, null, FORBIDDEN, badOrigin);

    // A revision this server does not speak is a 400 before the token or a tool answers.
    if (c.req.method === 'POST' && isJsonContentType(c.req.header('content-type') ?? '')) {
      const bad = await versionRefusal(c.req.header('mcp-protocol-version'), () => c.req.text());
      if (bad) return jsonRpcError(c, 400, bad.id, bad.code, bad.message, bad.data);
    }

    const principal = await authenticate(c);

    let parsedBody: unknown;
    if (c.req.method === 'POST' && isJsonContentType(c.req.header('content-type') ?? '')) {
      try {
        parsedBody = JSON.parse(await c.req.text());
      } catch {
        return jsonRpcError(c, 400, null, PARSE_ERROR, 'Parse error: the body is not valid JSON.');
      }
      gateToolCalls(parsedBody, principal, metadataUrl, catalogue.find);
      const answered = await fastPath?.answer(c.req.raw, parsedBody, principal);
      if (answered) return answered;
    }

    decided.set(c.req.raw, catalogue.forRequest(parsedBody, principal));
    return handler.fetch(c.req.raw, {
      ...(principal ? { authInfo: authInfoOf(principal) } : {}),
      ...(parsedBody === undefined ? {} : { parsedBody }),
    });
  });
  return app;
}
