import type { z } from 'zod';
import type { AppContext } from '../http/context.ts';
import type { Requirement } from '../resource/authorization.ts';
import type { Principal } from '../resource/principal.ts';
import { checkHints, type ToolHints } from './hints.ts';

// The hints live in hints.ts; READ_ONLY stays importable from here too (bench/floor-server.ts).
export { READ_ONLY } from './hints.ts';

/** Who may see and call a tool: everyone, or a token holding `scope` (`x:write` implies `x:read`). */
type ToolAudience = 'public' | 'member' | 'operator';

/** What a tool runs with: the app and who is calling (null when anonymous). */
export interface ToolCall {
  readonly ctx: AppContext;
  readonly principal: Principal | null;
}

/**
 * One MCP tool, defined once: its name, the scope that lists and admits it, zod schemas for
 * arguments and structured result, and a handler over `domain/` functions. Errors thrown as
 * `ProblemError` become MCP tool errors (`isError`); anything else is logged and hidden.
 */
export interface McpTool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  /** Matches `^[a-z][a-z0-9_]{0,63}$`: valid for every MCP client (SEP-986 tool names). */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly audience: ToolAudience;
  /** The one scope a token needs; null for public tools. */
  readonly scope: string | null;
  readonly input: I;
  /**
   * The arguments for a caller without a token, when they differ from `input` (an argument the
   * token would default, such as `school`, is required instead). Listed and enforced for them.
   */
  readonly anonymousInput?: z.ZodObject;
  readonly output: O;
  /** All four MCP hints, derived in hints.ts (READ_ONLY, changesData, operationHints). */
  readonly annotations: ToolHints;
  readonly run: (call: ToolCall, input: z.output<I>) => Promise<z.input<O>>;
  /** One readable sentence about a result, put before the JSON in the text content. */
  readonly summarize?: (output: z.input<O>) => string;
  /**
   * For a public tool that can ask to sign in: the scopes an anonymous call with these
   * arguments should be challenged for (HTTP 401), or undefined to run it anonymously.
   */
  readonly anonymousChallenge?: (args: Record<string, unknown>) => readonly string[] | undefined;
}

/** Any tool, as the catalogue holds them. */
// biome-ignore lint/suspicious/noExplicitAny: the catalogue is heterogeneous by design
export type AnyMcpTool = McpTool<any, any>;

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** Declares a tool, checking its name, that public tools have no scope, and its four hints (hints.ts). */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: McpTool<I, O>): McpTool<I, O> {
  if (!TOOL_NAME.test(tool.name)) throw new Error(`MCP tool name ${tool.name} is not ^[a-z][a-z0-9_]{0,63}$`);
  if ((tool.audience === 'public') !== (tool.scope === null)) {
    throw new Error(`MCP tool ${tool.name}: public tools have no scope, others exactly one`);
  }
  checkHints(tool.name, tool.annotations);
  return tool;
}

/** What calling a tool needs of a token (resource/authorization.ts), or null for public tools. */
export function toolRequirement(tool: AnyMcpTool): Requirement | null {
  if (tool.audience === 'public' || tool.scope === null) return null;
  return { audience: tool.audience, scopes: [tool.scope], needs: `The tool ${tool.name} needs` };
}
