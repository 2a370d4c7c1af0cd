import { type BearerRefusal, RefusalError } from '../errors/refusal.ts';
import { ACCOUNT_CHALLENGE_SCOPES, MCP_CHALLENGE_SCOPES } from '../oauth/scopes.ts';
import { decide, type Refusal } from '../resource/authorization.ts';
import { decisionRefusal, tokenRefusal } from '../resource/middleware.ts';
import type { Principal } from '../resource/principal.ts';
import { type AnyMcpTool, toolRequirement } from './tool.ts';

/** A JSON-RPC id as it appeared in the request (null when it could not be read). */
export type JsonRpcId = string | number | null;

/** A refusal of one JSON-RPC request of the body, with the id its error answer carries. */
export class ToolCallRefusal extends RefusalError {
  override name = 'ToolCallRefusal';
  readonly id: JsonRpcId;
  constructor(refusal: BearerRefusal, id: JsonRpcId) {
    super(refusal);
    this.id = id;
  }
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

/** Several scope refusals of one batch as one: every scope to step up to, in one challenge. */
function mergeScopeRefusals(refusals: readonly Refusal[]): Refusal {
  if (refusals.length === 1) return refusals[0];
  const scopes = [...new Set(refusals.flatMap((r) => (r.reason === 'insufficient_scope' ? r.scopes : [])))];
  return {
    reason: 'insufficient_scope',
    scopes,
    description: refusals.map((r) => r.description).join(' '),
  };
}

/**
 * Looks at every `tools/call` of a POST body (one message or a legacy batch) before the MCP
 * server runs it, so a call beyond the token is refused at the HTTP layer where clients look
 * for challenges: anonymous → 401 naming the scopes to ask for (RFC 6750 §3, RFC 9728 §5.1);
 * otherwise the one authorization decision (resource/authorization.ts) per call, rendered as
 * 403: a wrong audience or a lost operator role first, else every missing scope of the body in
 * one `insufficient_scope` challenge, the MCP authorization spec's step-up signal. Unknown tools
 * and every other method pass through for the MCP server to answer as JSON-RPC. A refusal is
 * thrown (ToolCallRefusal) for the endpoint's `onError` to answer.
 */
export function gateToolCalls(
  body: unknown,
  principal: Principal | null,
  metadataUrl: string,
  findTool: (name: string) => AnyMcpTool | undefined,
): void {
  const messages = Array.isArray(body) ? body : [body];
  const scopeRefusals: Refusal[] = [];
  let firstScopeId: JsonRpcId = null;
  for (const message of messages) {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) continue;
    const m = message as Record<string, unknown>;
    if (m.method !== 'tools/call' || typeof m.params !== 'object' || m.params === null) continue;
    const params = m.params as Record<string, unknown>;
    const tool = typeof params.name === 'string' ? findTool(params.name) : undefined;
    if (!tool) continue;
    const need = toolRequirement(tool);
    if (!need) {
      // A public tool asked to sign in (how_to_authenticate sign_in=true): 401, RFC 6750 §3.
      const args = typeof params.arguments === 'object' && params.arguments !== null ? params.arguments : {};
      const scopes = principal ? undefined : tool.anonymousChallenge?.(args as Record<string, unknown>);
      if (scopes) {
        const description = 'Sign in to use more tools.';
        throw new ToolCallRefusal(
          tokenRefusal(
            metadataUrl,
            { ok: false, error: 'invalid_token', description, tokenPresented: false },
            scopes,
          ),
          idOf(m),
        );
      }
      continue;
    }
    if (!principal) {
      // An unauthenticated call outranks a scope refusal in the same batch: the token comes first.
      // RFC 6750 §3: error_description excludes '"' and '\\', so names are not quoted.
      const description = `The tool ${tool.name} needs an access token with the ${tool.scope} scope.`;
      throw new ToolCallRefusal(
        tokenRefusal(
          metadataUrl,
          { ok: false, error: 'invalid_token', description, tokenPresented: false },
          anonymousChallengeScopes(tool),
        ),
        idOf(m),
      );
    }
    const decision = decide(principal, need);
    if (decision.allowed) continue;
    if (decision.reason !== 'insufficient_scope') {
      throw new ToolCallRefusal(decisionRefusal(metadataUrl, decision), idOf(m));
    }
    if (scopeRefusals.length === 0) firstScopeId = idOf(m);
    scopeRefusals.push(decision);
  }
  if (scopeRefusals.length === 0) return;
  throw new ToolCallRefusal(decisionRefusal(metadataUrl, mergeScopeRefusals(scopeRefusals)), firstScopeId);
}
