import { adminOperations } from '../admin/catalogue.ts';
import { REACHES_OUTSIDE } from './hints.ts';
import { MEMBER_TOOLS } from './member-tools.ts';
import { operatorTools } from './operator-tools.ts';
import { PUBLIC_TOOLS } from './public-tools.ts';
import type { AnyMcpTool } from './tool.ts';

/** Every tool the endpoint knows: public, member and one per admin operation. */
export function mcpTools(): AnyMcpTool[] {
  // A renamed operation must not lose its open-world hint silently.
  const unknown = Object.keys(REACHES_OUTSIDE).filter(
    (name) => !adminOperations.some((op) => op.name === name),
  );
  if (unknown.length > 0)
    throw new Error(`REACHES_OUTSIDE (hints.ts) names no operation: ${unknown.join(', ')}`);
  return [...PUBLIC_TOOLS, ...MEMBER_TOOLS, ...operatorTools(adminOperations)];
}
