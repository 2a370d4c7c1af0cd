import { ACCOUNT_CHALLENGE_SCOPES, hasScope, MCP_CHALLENGE_SCOPES } from '../oauth/scopes.ts';
import { type BearerRefusal, scopeRefusal, tokenRefusal } from '../resource/middleware.ts';
import type { Principal } from '../resource/principal.ts';
import type { AnyMcpTool } from './tool.ts';

/** A JSON-RPC id as it appeared in the request (null when it could not be read). */
export type JsonRpcId = string | number | null;

/** A refusal of one JSON-RPC request of the body, with the id its error answer carries. */
export interface GateRefusal {
  readonly refusal: BearerRefusal;
  readonly id: JsonRpcId;
}

function idOf(message: Record<string, unknown>): JsonRpcId {
  const id = message.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** What an anonymous caller should ask for: the tool's audience's default set plus the tool's scope. */
function anonymousChallengeScopes(tool: AnyMcpTool): string[] {
  const base = tool.audience === 'member' ? ACCOUNT_CHALLENGE_SCOPES : MCP_CHALLENGE_SCOPES;
  return base.includes(tool.scope as string) ? [...base] : [...base, tool.scope as string];
}

/**
 * Looks at every `tools/call` of a POST body (one message or a legacy batch) before the MCP
 * server runs it, so a call beyond the token is refused at the HTTP layer where clients look
 * for challenges: anonymous → 401 naming the scopes to ask for (RFC 6750 §3, RFC 9728 §5.1);
 * a token lacking the tool's scope → 403 `insufficient_scope` naming it (RFC 6750 §3.1), the
 * MCP authorization spec's step-up signal. Unknown tools and every other method pass through
 * for the MCP server to answer as JSON-RPC.
 */
export function gateToolCalls(
  body: unknown,
  principal: Principal | null,
  baseUrl: string,
  findTool: (name: string) => AnyMcpTool | undefined,
): GateRefusal | undefined {
  const messages = Array.isArray(body) ? body : [body];
  let forbidden: GateRefusal | undefined;
  for (const message of messages) {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) continue;
    const m = message as Record<string, unknown>;
    if (m.method !== 'tools/call' || typeof m.params !== 'object' || m.params === null) continue;
    const params = m.params as Record<string, unknown>;
    const tool = typeof params.name === 'string' ? findTool(params.name) : undefined;
    if (!tool) continue;
    if (!tool.scope) {
      // A public tool asked to sign in (how_to_authenticate sign_in=true): 401, RFC 6750 §3.
      const args = typeof params.arguments === 'object' && params.arguments !== null ? params.arguments : {};
      const scopes = principal ? undefined : tool.anonymousChallenge?.(args as Record<string, unknown>);
      if (scopes) {
        const description = 'Sign in to use more tools.';
        return {
          id: idOf(m),
          refusal: tokenRefusal(
            baseUrl,
            { ok: false, error: 'invalid_token', description, tokenPresented: false },
            scopes,
          ),
        };
      }
      continue;
    }
    if (!principal) {
      // An unauthenticated call outranks a scope refusal in the same batch: the token comes first.
      // RFC 6750 §3: error_description excludes '"' and '\\', so names are not quoted.
      const description = `The tool ${tool.name} needs an access token with the ${tool.scope} scope.`;
      return {
        id: idOf(m),
        refusal: tokenRefusal(
          baseUrl,
          { ok: false, error: 'invalid_token', description, tokenPresented: false },
          anonymousChallengeScopes(tool),
        ),
      };
    }
    if (!forbidden && !hasScope(principal.scopes, tool.scope)) {
      forbidden = {
        id: idOf(m),
        refusal: scopeRefusal(baseUrl, tool.scope, `The tool ${tool.name} needs the ${tool.scope} scope.`),
      };
    }
  }
  return forbidden;
}
