import { z } from 'zod';
import type { AdminOperation } from '../admin/define-operation.ts';
import { invokeOperation } from '../admin/invoke.ts';
import { problems } from '../errors/problem-error.ts';
import { checkHints, operationHints } from './hints.ts';
import { lazyJsonSchema } from './schema-cache.ts';
import type { AnyMcpTool } from './tool.ts';

/**
 * One operator tool per admin operation of the catalogue (architecture.md: one catalogue, three
 * surfaces). The tool takes the operation's path, query and body fields as one flat object and
 * runs through `invokeOperation`, the same checks and handler as the REST route. Byte-stream
 * operations (upload/download) stay REST-only.
 */

type Part = 'params' | 'query' | 'body';

/** `courses.create` → `courses_create`: dots are not valid in every client's tool names. */
export function toolNameOf(op: AdminOperation): string {
  return op.name.replace(/\./g, '_');
}

function shapeOf(schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  return schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : undefined;
}

/**
 * The flat argument object and where each argument goes. A body that is not an object, or
 * whose fields collide with path or query names, is passed whole as `body`.
 */
function flatInput(op: AdminOperation): {
  schema: z.ZodObject;
  parts: Map<string, Part>;
  nestedBody: boolean;
} {
  const parts = new Map<string, Part>();
  const shape: Record<string, z.ZodType> = {};
  for (const part of ['params', 'query'] as const) {
    for (const [key, field] of Object.entries(shapeOf(op.input[part]) ?? {})) {
      shape[key] = field;
      parts.set(key, part);
    }
  }
  const body = op.input.body as z.ZodType | undefined;
  const bodyShape = shapeOf(body);
  const nestedBody = body !== undefined && (!bodyShape || Object.keys(bodyShape).some((k) => parts.has(k)));
  if (body && nestedBody) {
    if (parts.has('body')) throw new Error(`${op.name}: a path or query field named body`);
    shape.body = body;
  } else
    for (const [key, field] of Object.entries(bodyShape ?? {})) {
      shape[key] = field;
      parts.set(key, 'body');
    }
  return { schema: z.strictObject(shape), parts, nestedBody };
}

/** The operation's response as an object (MCP structured content is always an object). */
function outputOf(op: AdminOperation): {
  schema: z.ZodObject;
  wrap: (body: unknown) => Record<string, unknown>;
} {
  if (op.output instanceof z.ZodObject)
    return { schema: op.output, wrap: (b) => b as Record<string, unknown> };
  if (op.output) return { schema: z.object({ result: op.output }), wrap: (b) => ({ result: b }) };
  return { schema: z.object({ ok: z.literal(true) }), wrap: () => ({ ok: true }) };
}

/** Builds the MCP tool of one admin operation. */
export function operatorTool(op: AdminOperation): AnyMcpTool {
  const hints = operationHints(op);
  checkHints(toolNameOf(op), hints);
  const input = flatInput(op);
  const output = outputOf(op);
  // Arguments are checked against the JSON Schema only (no zod transforms) and handed raw to
  // invokeOperation, which parses them with the operation's own schemas: one parser, as REST.
  const jsonSchema = () =>
    z.toJSONSchema(input.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    name: toolNameOf(op),
    title: op.summary,
    description: [op.summary.replace(/\.?$/, '.'), op.description, `Needs the ${op.scope} scope.`]
      .filter(Boolean)
      .join(' '),
    audience: 'operator',
    scope: op.scope,
    input: lazyJsonSchema(jsonSchema),
    output: output.schema,
    annotations: hints,
    run: async (call, args: Record<string, unknown>) => {
      if (!call.principal) throw problems.forbidden('This tool needs an operator access token.');
      const raw: { params: Record<string, string>; query: Record<string, string>; body?: unknown } = {
        params: {},
        query: {},
      };
      const body: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(args ?? {})) {
        const part = input.parts.get(key);
        // Path and query values arrive as text over REST; give the operation the same.
        if (part === 'params' || part === 'query')
          raw[part][key] = typeof value === 'string' ? value : String(value);
        else if (part === 'body') body[key] = value;
      }
      if (input.nestedBody) raw.body = args?.body;
      else if (op.input.body) raw.body = body;
      const result = await invokeOperation(call.ctx, call.principal, op, raw);
      return output.wrap(result.body);
    },
    summarize: () => `${op.summary.replace(/\.$/, '')}: done.`,
  };
}

/** The operator tools of every operation that speaks JSON. */
export function operatorTools(operations: readonly AdminOperation[]): AnyMcpTool[] {
  return operations.filter((op) => !op.binary).map(operatorTool);
}
