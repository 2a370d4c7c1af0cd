import { z } from 'zod';
import type { AdminOperation } from '../admin/define-operation.ts';
import { runOperation, type ValidInput } from '../admin/invoke.ts';
import { innerOf, shapeOf } from '../domain/kernel/zod-walk.ts';
import { problems } from '../errors/problem-error.ts';
import { checkHints, operationHints } from './hints.ts';
import { type JsonCarryingSchema, lazyJsonSchema } from './schema-cache.ts';
import type { AnyMcpTool } from './tool.ts';
import { toolInput } from './tool-input.ts';

/**
 * One operator tool per admin operation of the catalogue (architecture.md: one catalogue, three
 * surfaces). The tool takes the operation's path, query and body fields as one flat object,
 * validated once by a schema derived from the operation's own (see `operationInput`); the typed
 * values go to `runOperation`, the same handler and checks as the REST route. Byte-stream
 * operations (upload/download) stay REST-only.
 */

type Part = 'params' | 'query' | 'body';

/** `courses.create` → `courses_create`: dots are not valid in every client's tool names. */
function toolNameOf(op: AdminOperation): string {
  return op.name.replace(/\./g, '_');
}

type FieldDef = { type: string; coerce?: boolean; innerType?: z.ZodType };

/**
 * A path or query field as a JSON argument: REST receives them as text and coerces (`limit`
 * `"5"` → 5); a tool argument is JSON already, so it takes exactly the type its JSON Schema
 * lists (a number, not `"5"`). Same checks and description, without the coercion.
 */
function jsonField(field: z.ZodType): z.ZodType {
  const def = field._zod.def as FieldDef;
  const wrapped = innerOf(field);
  let exact: z.ZodType | undefined;
  if (def.coerce) exact = field.clone({ ...field._zod.def, coerce: false } as typeof field._zod.def);
  else if (wrapped) {
    const inner = jsonField(wrapped);
    if (inner !== wrapped)
      exact = field.clone({ ...field._zod.def, innerType: inner } as typeof field._zod.def);
  }
  if (!exact) return field;
  const meta = z.globalRegistry.get(field);
  if (meta) z.globalRegistry.add(exact, meta);
  return exact;
}

/** An operation's tool input: the schema that validates it and where each argument goes. */
interface OperationInput {
  readonly schema: JsonCarryingSchema;
  readonly parts: ReadonlyMap<string, Part>;
  /** The body is the argument `body` itself (not an object, or its fields collide). */
  readonly nestedBody: boolean;
}

/**
 * Rules an operation states about a whole part (`from` before `to`, `user_id` or `email`),
 * which flattening would lose: each runs on that part's own fields of the validated arguments.
 */
function partRules(op: AdminOperation, parts: ReadonlyMap<string, Part>, nestedBody: boolean) {
  const rules: Array<{ keys: string[]; check: z.ZodType }> = [];
  // A body passed whole keeps its rules in its own schema.
  for (const part of nestedBody ? (['params', 'query'] as const) : (['params', 'query', 'body'] as const)) {
    const schema = op.input[part] as z.ZodType | undefined;
    const checks = schema instanceof z.ZodObject ? schema._zod.def.checks : undefined;
    if (!checks?.length) continue;
    const keys = [...parts].filter(([, p]) => p === part).map(([k]) => k);
    rules.push({ keys, check: z.unknown().check(...(checks as z.core.$ZodCheck<unknown>[])) });
  }
  return rules;
}

/**
 * The flat argument object of an operation and where each argument goes. A body that is not an
 * object, or whose fields collide with path or query names, is passed whole as `body`. Built
 * once per operation and process: the tools of every app share it, and its JSON Schema.
 */
function deriveInput(op: AdminOperation): OperationInput {
  const parts = new Map<string, Part>();
  const shape: Record<string, z.ZodType> = {};
  for (const part of ['params', 'query'] as const) {
    for (const [key, field] of Object.entries(shapeOf(op.input[part]))) {
      shape[key] = jsonField(field);
      parts.set(key, part);
    }
  }
  const body = op.input.body as z.ZodType | undefined;
  const bodyShape = body instanceof z.ZodObject ? shapeOf(body) : undefined;
  const nestedBody = body !== undefined && (!bodyShape || Object.keys(bodyShape).some((k) => parts.has(k)));
  if (body && nestedBody) {
    if (parts.has('body')) throw new Error(`${op.name}: a path or query field named body`);
    shape.body = body;
  } else
    for (const [key, field] of Object.entries(bodyShape ?? {})) {
      shape[key] = field;
      parts.set(key, 'body');
    }
  const rules = partRules(op, parts, nestedBody);
  const flat = toolInput(shape);
  const schema: z.ZodType = rules.length
    ? flat.superRefine((args, ctx) => {
        for (const rule of rules) {
          const own: Record<string, unknown> = {};
          for (const key of rule.keys) if (key in args) own[key] = args[key];
          const result = rule.check.safeParse(own);
          if (!result.success) for (const issue of result.error.issues) ctx.addIssue({ ...issue });
        }
      })
    : flat;
  const std = schema['~standard'];
  return {
    schema: lazyJsonSchema(
      (value) => std.validate(value),
      () => z.toJSONSchema(flat, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
    ),
    parts,
    nestedBody,
  };
}

const inputs = new WeakMap<AdminOperation, OperationInput>();

/** The operation's tool input, derived on the first tool built for it. */
function operationInput(op: AdminOperation): OperationInput {
  let input = inputs.get(op);
  if (!input) {
    input = deriveInput(op);
    inputs.set(op, input);
  }
  return input;
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
function operatorTool(op: AdminOperation): AnyMcpTool {
  const hints = operationHints(op);
  checkHints(toolNameOf(op), hints);
  const input = operationInput(op);
  const output = outputOf(op);
  return {
    name: toolNameOf(op),
    title: op.summary,
    description: [op.summary.replace(/\.?$/, '.'), op.description, `Needs the ${op.scope} scope.`]
      .filter(Boolean)
      .join(' '),
    audience: 'operator',
    scope: op.scope,
    input: input.schema,
    output: output.schema,
    annotations: hints,
    // `args` are the values `input.schema` produced (the SDK and the fast path validate with it):
    // typed already, so they go to the handler as they are, only sorted into their parts.
    run: async (call, args: Record<string, unknown>) => {
      if (!call.principal) throw problems.forbidden('This tool needs an operator access token.');
      const parts: Record<Part, Record<string, unknown>> = { params: {}, query: {}, body: {} };
      for (const key in args) {
        const part = input.parts.get(key);
        if (part) parts[part][key] = args[key];
      }
      const valid: ValidInput = {
        params: parts.params,
        query: parts.query,
        body: op.input.body ? (input.nestedBody ? args.body : parts.body) : undefined,
        raw: undefined,
      };
      const result = await runOperation(call.ctx, call.principal, op, valid);
      return output.wrap(result.body);
    },
    summarize: () => `${op.summary.replace(/\.$/, '')}: done.`,
  };
}

/** The operator tools of every operation that speaks JSON. */
export function operatorTools(operations: readonly AdminOperation[]): AnyMcpTool[] {
  return operations.filter((op) => !op.binary).map(operatorTool);
}
