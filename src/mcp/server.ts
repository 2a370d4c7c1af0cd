import type { CallToolResult, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { McpServer } from '@modelcontextprotocol/server';
import { ProblemError } from '../errors/problem-error.ts';
import type { AppContext } from '../http/context.ts';
import type { Principal } from '../resource/principal.ts';
import { serverInstructions } from './instructions.ts';
import { cachedJsonSchema, type JsonCarryingSchema } from './schema-cache.ts';
import type { AnyMcpTool, ToolCall } from './tool.ts';

export const SERVER_INFO = { name: 'lectern', title: 'Lectern', version: '0.1.0' } as const;

/** A domain failure as an MCP tool error (isError): the model reads it and can correct itself. */
function toolError(text: string, structured?: Record<string, unknown>): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text }],
    ...(structured ? { _meta: { 'lectern/problem': structured } } : {}),
  };
}

/** Runs one tool and shapes its answer: structured result plus the same as readable text. */
export async function runTool(tool: AnyMcpTool, call: ToolCall, args: unknown): Promise<CallToolResult> {
  try {
    const output = (await tool.run(call, args)) as Record<string, unknown>;
    const summary = tool.summarize?.(output);
    const json = JSON.stringify(output);
    return {
      content: [{ type: 'text', text: summary ? `${summary}\n\n${json}` : json }],
      structuredContent: output,
    };
  } catch (err) {
    if (err instanceof ProblemError) {
      const fields = err.errors?.map((e) => `${e.field}: ${e.message}`).join('; ');
      const text = [`${err.title} (${err.code})`, err.detail, fields].filter(Boolean).join(': ');
      if (err.status >= 500) call.ctx.logger.error({ err, tool: tool.name }, 'mcp tool problem');
      return toolError(text, { status: err.status, code: err.code, detail: err.detail, errors: err.errors });
    }
    call.ctx.logger.error({ err, tool: tool.name }, 'mcp tool failed');
    return toolError('The server could not complete this tool call; try again later.');
  }
}

interface ToolSchemas {
  input: JsonCarryingSchema;
  anonymousInput: JsonCarryingSchema;
  output: JsonCarryingSchema;
}
const schemas = new WeakMap<AnyMcpTool, ToolSchemas>();

/** A tool's schemas with their JSON Schema converted once per process (see schema-cache.ts). */
function schemasOf(tool: AnyMcpTool): ToolSchemas {
  let s = schemas.get(tool);
  if (!s) {
    // Tools hold zod schemas or our own JSON-carrying ones (operator tools); both are Standard Schemas.
    const wrap = (schema: unknown) => {
      const std = schema as JsonCarryingSchema;
      return std['~standard'].vendor === 'lectern' ? std : cachedJsonSchema(std);
    };
    const input = wrap(tool.input);
    s = {
      input,
      anonymousInput: tool.anonymousInput ? wrap(tool.anonymousInput) : input,
      output: wrap(tool.output),
    };
    schemas.set(tool, s);
  }
  return s;
}

/** How one caller sees a tool: what it is listed with and held to (SDK path and fast path alike). */
export interface CallerTool {
  readonly title: string;
  readonly description: string;
  readonly input: JsonCarryingSchema;
  readonly output: JsonCarryingSchema;
  readonly annotations: Record<string, unknown>;
}

/** The schema listed is the one enforced: per caller, as the tool list itself. */
export function callerTool(tool: AnyMcpTool, principal: Principal | null): CallerTool {
  const s = schemasOf(tool);
  return {
    title: tool.title,
    description: tool.description,
    input: principal ? s.input : s.anonymousInput,
    output: s.output,
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/**
 * A fresh MCP server for one request, holding exactly the tools the caller may use. Built per
 * request because the endpoint is stateless: the tool list follows the token, not a session.
 */
export function buildServer(
  ctx: AppContext,
  principal: Principal | null,
  tools: readonly AnyMcpTool[],
): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: serverInstructions(ctx.config.baseUrl),
    capabilities: { tools: { listChanged: false } },
  });
  const call: ToolCall = { ctx, principal };
  for (const tool of tools) {
    const t = callerTool(tool, principal);
    server.registerTool(
      tool.name,
      {
        title: t.title,
        description: t.description,
        inputSchema: t.input as unknown as StandardSchemaWithJSON,
        outputSchema: t.output as unknown as StandardSchemaWithJSON,
        annotations: t.annotations,
      },
      (args: unknown) => runTool(tool, call, args),
    );
  }
  return server;
}
