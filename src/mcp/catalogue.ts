import { mayActFor } from '../domain/school/standing.ts';
import { decide } from '../resource/authorization.ts';
import type { Principal } from '../resource/principal.ts';
import { type AnyMcpTool, toolRequirement } from './tool.ts';

/** Every MCP tool by name, and the subset a caller may list. */
export interface ToolCatalogue {
  readonly all: readonly AnyMcpTool[];
  find(name: string): AnyMcpTool | undefined;
  /** Public tools for everyone; others when the authorization decision allows calling them. */
  visibleTo(principal: Principal | null): AnyMcpTool[];
  /**
   * The tools one request's server needs (registering costs more than most calls): a single
   * `tools/call` of a visible tool, that tool alone; another single method but `tools/list`,
   * none (capabilities are declared regardless); a batch or `tools/list`, all visible ones.
   */
  forRequest(body: unknown, principal: Principal | null): AnyMcpTool[];
}

/** Builds the catalogue, refusing duplicate names (a tool name is the call's only key). */
export function createToolCatalogue(tools: readonly AnyMcpTool[]): ToolCatalogue {
  const byName = new Map<string, AnyMcpTool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`duplicate MCP tool name ${tool.name}`);
    byName.set(tool.name, tool);
  }
  const publicTools = tools.filter((t) => t.scope === null);
  const cache = new Map<string, AnyMcpTool[]>();
  return {
    all: tools,
    find: (name) => byName.get(name),
    visibleTo(principal) {
      if (!principal) return publicTools;
      // Few distinct (audience, role, scopes) exist; memoise so a busy token does not refilter
      // every request. They are all the decision reads to allow a call.
      const key = `${principal.audience} ${mayActFor('operator', principal.roles)} ${[...principal.scopes].sort().join(' ')}`;
      let list = cache.get(key);
      if (!list) {
        list = tools.filter((t) => {
          const need = toolRequirement(t);
          return need === null || decide(principal, need).allowed;
        });
        if (cache.size > 1000) cache.clear();
        cache.set(key, list);
      }
      return list;
    },
    forRequest(body, principal) {
      const visible = this.visibleTo(principal);
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return visible;
      const m = body as { method?: unknown; params?: { name?: unknown } };
      if (typeof m.method === 'string' && !m.method.startsWith('tools/')) return [];
      if (m.method !== 'tools/call' || typeof m.params?.name !== 'string') return visible;
      const tool = byName.get(m.params.name);
      return tool && visible.includes(tool) ? [tool] : visible;
    },
  };
}
