import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  specTypeSchemas,
} from '@modelcontextprotocol/server';
import type { AppContext } from '../http/context.ts';
import type { Principal } from '../resource/principal.ts';
import type { ToolCatalogue } from './catalogue.ts';
import { MODERN_PROTOCOL_VERSION } from './protocol-version.ts';
import type { JsonCarryingSchema } from './schema-cache.ts';
import { callerTool, runTool, SERVER_INFO } from './server.ts';
import type { AnyMcpTool } from './tool.ts';

/**
 * The MCP fast path (docs/decisions.md): one POSTed JSON-RPC request for `tools/call`,
 * `tools/list` or (2025 era) `ping`, answered as `application/json` without building the SDK's
 * per-request McpServer, transport and stream. It answers only what it is sure of and returns
 * undefined for everything else, which the route then hands to the SDK unchanged. What it answers
 * is the SDK's own answer (test/mcp/fast-path.test.ts compares the two for every tool and error):
 * the SDK's classifier decides the era, the SDK's schemas validate the message, the tools run
 * through the same `runTool` with the same per-caller schemas (server.ts `callerTool`).
 */

/** 2025-era revisions served statelessly here; an absent header is the SDK's 2025-03-26 default. */
const LEGACY_VERSIONS = new Set(['2025-11-25', '2025-06-18', '2025-03-26']);
const ENVELOPE_KEYS = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
]);
const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
/** The params each method may carry here; any other member (task, requestState, …) goes to the SDK. */
const PARAM_KEYS: Record<string, ReadonlySet<string>> = {
  'tools/call': new Set(['name', 'arguments', '_meta']),
  'tools/list': new Set(['cursor', '_meta']),
  ping: new Set(['_meta']),
};
const REQUEST_SCHEMAS = {
  'tools/call': specTypeSchemas.CallToolRequest,
  'tools/list': specTypeSchemas.ListToolsRequest,
  ping: specTypeSchemas.PingRequest,
} as const;
/** The SDK's specTypeSchemas are zod schemas; the Server sends the parsed value of its result check. */
const RESULT_SCHEMA = specTypeSchemas.CallToolResult as unknown as {
  safeParse(
    value: unknown,
  ): { success: true; data: Record<string, unknown> } | { success: false; error: unknown };
};
type FastMethod = keyof typeof REQUEST_SCHEMAS;
type Era = 'legacy' | 'modern';
type JsonRpcId = string | number;

const INVALID_PARAMS = -32602;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

/**
 * The era this request would be served in by the SDK, when its headers are exactly what that
 * era's clients send; undefined when the SDK would refuse it or the answer could depend on more.
 */
function eraOf(request: Request, message: Record<string, unknown>, method: FastMethod): Era | undefined {
  const headers = request.headers;
  if (headers.has('mcp-session-id')) return undefined;
  const versionHeader = headers.get('mcp-protocol-version');
  const methodHeader = headers.get('mcp-method');
  const nameHeader = headers.get('mcp-name');
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    body: message,
    ...(versionHeader === null ? {} : { protocolVersionHeader: versionHeader }),
    ...(methodHeader === null ? {} : { mcpMethodHeader: methodHeader }),
    ...(nameHeader === null ? {} : { mcpNameHeader: nameHeader }),
  });
  if (route.kind === 'legacy') {
    if (route.reason !== 'no-claim') return undefined;
    // The stateless transport's own checks: Accept naming both types, a version it supports.
    const accept = headers.get('accept');
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
    if (versionHeader !== null && !LEGACY_VERSIONS.has(versionHeader)) return undefined;
    return 'legacy';
  }
  if (route.kind !== 'modern' || route.messageKind !== 'request') return undefined;
  if (route.classification.revision !== MODERN_PROTOCOL_VERSION || versionHeader !== MODERN_PROTOCOL_VERSION)
    return undefined;
  // SEP-2243 standard headers, exactly as sent by clients; anything else is the SDK's to refuse.
  if (methodHeader !== method) return undefined;
  if (method === 'tools/call') {
    const name = (message.params as Record<string, unknown>).name;
    if (typeof name !== 'string' || nameHeader !== name || name.startsWith('=?')) return undefined;
  } else if (nameHeader !== null || method === 'ping') {
    return undefined; // 2026-07-28 has no ping: the SDK answers its method-not-found.
  }
  return 'modern';
}

/** The message as the SDK's handlers see it (envelope lifted), or undefined when it holds more. */
function liftedParams(params: unknown, method: FastMethod, era: Era): Record<string, unknown> | undefined {
  if (params === undefined) return era === 'legacy' ? {} : undefined;
  if (!isPlainObject(params) || !onlyKeys(params, PARAM_KEYS[method])) return undefined;
  const meta = params._meta;
  if (meta === undefined) return era === 'legacy' ? params : undefined;
  if (era === 'legacy' || !isPlainObject(meta) || !onlyKeys(meta, ENVELOPE_KEYS)) return undefined;
  const { _meta: _, ...rest } = params;
  return rest;
}

/** The SDK's `validateStandardSchema` message: issues as `path: message`, comma-separated. */
async function validate(
  schema: JsonCarryingSchema,
  value: unknown,
): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  const result = (await schema['~standard'].validate(value)) as {
    value?: unknown;
    issues?: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }>;
  };
  if (result.issues && result.issues.length > 0) {
    const error = result.issues
      .map((i) =>
        i.path?.length
          ? `${i.path.map((p) => String(typeof p === 'object' ? p.key : p)).join('.')}: ${i.message}`
          : i.message,
      )
      .join(', ');
    return { ok: false, error };
  }
  return { ok: true, value: result.value };
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** One `tools/list` entry as McpServer lists it, built once per tool and kind of caller. */
const listed = new WeakMap<AnyMcpTool, { member?: unknown; anonymous?: unknown }>();
function listEntry(tool: AnyMcpTool, principal: Principal | null): unknown {
  let entries = listed.get(tool);
  if (!entries) {
    entries = {};
    listed.set(tool, entries);
  }
  const kind = principal ? 'member' : 'anonymous';
  let entry = entries[kind];
  if (!entry) {
    const t = callerTool(tool, principal);
    const output = t.output['~standard'].jsonSchema.output();
    entry = {
      name: tool.name,
      title: t.title,
      description: t.description,
      inputSchema: { type: 'object', ...t.input['~standard'].jsonSchema.input() },
      annotations: t.annotations,
      outputSchema: output.type === undefined ? { type: 'object', ...output } : output,
    };
    entries[kind] = entry;
  }
  return entry;
}

export interface FastPath {
  /** The answer to this POST, or undefined to hand it to the SDK unchanged. */
  answer(request: Request, body: unknown, principal: Principal | null): Promise<Response | undefined>;
}

export function createFastPath(ctx: AppContext, catalogue: ToolCatalogue): FastPath {
  /** McpServer's tools/call: look-up, input validation, the tool, output validation. */
  async function callTool(params: Record<string, unknown>, principal: Principal | null) {
    const name = params.name as string;
    const tool = catalogue.find(name);
    if (!tool || !catalogue.visibleTo(principal).includes(tool)) {
      return { error: { code: INVALID_PARAMS, message: `Tool ${name} not found` } };
    }
    const t = callerTool(tool, principal);
    const args = await validate(t.input, params.arguments ?? {});
    if (!args.ok) {
      return {
        result: toolError(`Input validation error: Invalid arguments for tool ${name}: ${args.error}`),
      };
    }
    const result = await runTool(tool, { ctx, principal }, args.value);
    if (!result.isError) {
      const out = await validate(t.output, result.structuredContent);
      if (!out.ok) {
        return {
          result: toolError(
            `Output validation error: Invalid structured content for tool ${name}: ${out.error}`,
          ),
        };
      }
    }
    // The Server's own check of every tools/call result, whose parsed value it sends.
    const checked = RESULT_SCHEMA.safeParse(result);
    if (!checked.success) {
      return {
        error: { code: INVALID_PARAMS, message: `Invalid tools/call result: ${String(checked.error)}` },
      };
    }
    return { result: checked.data };
  }

  return {
    async answer(request, body, principal) {
      if (!isPlainObject(body) || !onlyKeys(body, MESSAGE_KEYS)) return undefined;
      const method = body.method;
      if (method !== 'tools/call' && method !== 'tools/list' && method !== 'ping') return undefined;
      // The SDK's classifier: only a valid JSON-RPC request (isJSONRPCRequest) gets an era.
      const era = eraOf(request, body, method);
      if (!era) return undefined;
      const params = liftedParams(body.params, method, era);
      if (!params) return undefined;
      const id = body.id as JsonRpcId;
      const lifted = { jsonrpc: '2.0', id, method, ...(body.params === undefined ? {} : { params }) };
      // A message the SDK's schemas refuse gets the SDK's own refusal.
      if (REQUEST_SCHEMAS[method]['~standard'].validate(lifted).issues) return undefined;

      let outcome: { result?: Record<string, unknown>; error?: { code: number; message: string } };
      if (method === 'ping') outcome = { result: {} };
      else if (method === 'tools/list') {
        outcome = { result: { tools: catalogue.visibleTo(principal).map((t) => listEntry(t, principal)) } };
      } else outcome = await callTool(params, principal);

      const message = outcome.error
        ? { jsonrpc: '2.0', id, error: outcome.error }
        : {
            result: era === 'modern' ? encodeModern(method, outcome.result ?? {}) : outcome.result,
            jsonrpc: '2.0',
            id,
          };
      // A string body, as Response.json would write it: the Node adapter's fast path takes it as is.
      return new Response(JSON.stringify(message), {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      });
    },
  };
}

/** The 2026-07-28 encode contract: `resultType`, cache fields of cacheable results, serverInfo. */
function encodeModern(method: FastMethod, result: Record<string, unknown>): Record<string, unknown> {
  const stamped: Record<string, unknown> = { ...result, resultType: 'complete' };
  if (method === 'tools/list') {
    stamped.ttlMs = 0;
    stamped.cacheScope = 'private';
  }
  const meta = result._meta as Record<string, unknown> | undefined;
  return { ...stamped, _meta: { ...meta, [SERVER_INFO_META_KEY]: SERVER_INFO } };
}
