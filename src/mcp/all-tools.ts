import { MEMBER_TOOLS } from './member-tools.ts';
import { PUBLIC_TOOLS } from './public-tools.ts';
import type { AnyMcpTool } from './tool.ts';

/** Every tool the endpoint knows: public, member and operator. */
export function mcpTools(): AnyMcpTool[] {
  return [...PUBLIC_TOOLS, ...MEMBER_TOOLS];
}
