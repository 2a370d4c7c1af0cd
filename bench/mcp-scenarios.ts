import { loadConfig } from '../src/config.ts';
import { DEMO_MEMBER_APP_ID } from '../src/domain/demo/demo-seed.ts';
import { findSchoolBySubdomain } from '../src/domain/school/schools.ts';
import { findUserByEmail } from '../src/domain/school/users.ts';
import { createGrant } from '../src/oauth/grants/grants.ts';
import { issueTokens } from '../src/oauth/grants/tokens.ts';
import { openDatabase } from '../src/store/database.ts';
import { isoNow } from '../src/store/time.ts';
import type { Scenario } from './measure.ts';
import { warmThenMeasure } from './measure.ts';
import { startLectern } from './servers.ts';

/**
 * Issues a member access token for the demo student through the real grant and token functions,
 * as an authorization would have (bench only: the flow itself is tested end to end elsewhere).
 */
export async function issueMemberToken(
  env: Record<string, string>,
  scopes: readonly string[] = ['openid', 'account:read'],
): Promise<string> {
  const config = loadConfig(env);
  const db = openDatabase(config.database);
  try {
    const school = await findSchoolBySubdomain(db, 'demo');
    const user = await findUserByEmail(db, 'student@example.com');
    if (!school || !user) throw new Error('demo data missing');
    const grant = await createGrant(db, {
      clientId: DEMO_MEMBER_APP_ID,
      userId: user.id,
      schoolId: school.id,
      audience: 'member',
      scopes: [...scopes],
      resource: config.baseUrl,
      authTime: isoNow(),
    });
    return (await issueTokens(db, grant, scopes)).accessToken;
  } finally {
    await db.destroy();
  }
}

/** The tools/call body of either protocol era. */
export function toolsCall(modern: boolean): string {
  const meta = modern
    ? {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      }
    : {};
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'my_courses', arguments: {}, ...meta },
  });
}

function mcpScenario(modern: boolean): Scenario {
  const version = modern ? '2026-07-28' : '2025-11-25';
  return {
    name: `mcp tools/call my_courses (member ${version})`,
    goal: 0.15,
    async run() {
      let token = '';
      const server = await startLectern({
        prepare: async (env) => {
          token = await issueMemberToken(env);
        },
      });
      try {
        const headers: Record<string, string> = {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': version,
        };
        if (modern) {
          headers['mcp-method'] = 'tools/call';
          headers['mcp-name'] = 'my_courses';
        }
        const target = {
          url: `${server.url}/mcp`,
          method: 'POST' as const,
          headers,
          body: toolsCall(modern),
        };
        const probe = await fetch(target.url, { method: 'POST', headers, body: target.body });
        const text = await probe.text();
        if (probe.status !== 200 || !text.includes('structuredContent') || text.includes('"isError":true')) {
          throw new Error(`probe answered ${probe.status}: ${text.slice(0, 200)}`);
        }
        return { figures: await warmThenMeasure(target) };
      } finally {
        await server.stop();
      }
    },
  };
}

/** The MCP endpoint under load: a member read tool with a token, on both protocol eras. */
export const mcpScenarios: Scenario[] = [mcpScenario(false), mcpScenario(true)];
