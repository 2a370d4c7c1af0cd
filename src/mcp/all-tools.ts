import { adminOperations } from '../admin/catalogue.ts';
import { MEMBER_TOOLS } from './member-tools.ts';
import { operatorTools } from './operator-tools.ts';
import { PUBLIC_TOOLS } from './public-tools.ts';
import type { AnyMcpTool } from './tool.ts';

/** Every tool the endpoint knows: public, member and one per admin operation. */
export function mcpTools(): AnyMcpTool[] {
  return [...PUBLIC_TOOLS, ...MEMBER_TOOLS, ...operatorTools(adminOperations)];
}
