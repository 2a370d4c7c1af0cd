import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { listen, type RunningServer } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { ENGINE } from '../support/database.ts';
import { issueTestToken } from '../support/tokens.ts';
import { seedSchool } from '../support/world-mcp.ts';

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, server scenarios)
 * against `/mcp`: anonymously and with an operator and a member token. The CLI has no token
 * option, so it talks to a bearer-adding reverse proxy whose address is the app's BASE_URL (as in
 * production behind a proxy: Host is forwarded as is, so the DNS-rebinding scenario sees the real
 * Origin/Host check). Which scenarios apply, and why the others do not: docs/mcp-conformance.md.
 *
 * SQLite only: the scenarios speak the protocol (initialize, ping, tools/list, Host/Origin); the
 * database serves only the token lookup, which the other MCP tests run on both engines.
 */

const run = promisify(execFile);
const cli = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);

/** Scenarios that apply to Lectern: each must pass (only SUCCESS or INFO checks, at least one SUCCESS). */
const MUST_PASS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
/**
 * Scenarios for resumable SSE streams, which need sessions: a stateless server gets warnings, no
 * failure. These exact warnings are expected; a new one or any failure fails the test.
 */
const SSE_WARNINGS: Record<string, string[]> = {
  'server-sse-polling': ['server-sse-polling-session', 'server-sse-priming-event', 'server-sse-retry-field'],
  'server-sse-multiple-streams': ['server-sse-multiple-streams-session'],
};
/** Scenarios that do not apply, and the only failure each may show (docs/mcp-conformance.md). */
const NO_CAPABILITY = /MCP error -32601: Method not found/;
const NO_FIXTURE_TOOL = /Tool '?test_\w+'? not found|Tool 'json_schema_2020_12_tool' not found/;
const NOT_APPLICABLE: Record<string, RegExp> = {
  'logging-set-level': NO_CAPABILITY,
  'tools-call-with-logging': NO_CAPABILITY,
  'completion-complete': NO_CAPABILITY,
  'resources-list': NO_CAPABILITY,
  'resources-read-text': NO_CAPABILITY,
  'resources-read-binary': NO_CAPABILITY,
  'resources-templates-read': NO_CAPABILITY,
  'resources-subscribe': NO_CAPABILITY,
  'resources-unsubscribe': NO_CAPABILITY,
  'prompts-list': NO_CAPABILITY,
  'prompts-get-simple': NO_CAPABILITY,
  'prompts-get-with-args': NO_CAPABILITY,
  'prompts-get-embedded-resource': NO_CAPABILITY,
  'prompts-get-with-image': NO_CAPABILITY,
  'tools-call-simple-text': NO_FIXTURE_TOOL,
  'tools-call-image': NO_FIXTURE_TOOL,
  'tools-call-audio': NO_FIXTURE_TOOL,
  'tools-call-embedded-resource': NO_FIXTURE_TOOL,
  'tools-call-mixed-content': NO_FIXTURE_TOOL,
  'tools-call-error': NO_FIXTURE_TOOL,
  'tools-call-with-progress': NO_FIXTURE_TOOL,
  'tools-call-sampling': NO_FIXTURE_TOOL,
  'tools-call-elicitation': NO_FIXTURE_TOOL,
  'elicitation-sep1034-defaults': NO_FIXTURE_TOOL,
  'elicitation-sep1330-enums': NO_FIXTURE_TOOL,
  'json-schema-2020-12': NO_FIXTURE_TOOL,
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
  details?: { tools?: string[] };
}

/** A tool each caller's list must show, proving the suite ran as that caller. */
const SIGN_OF: Record<string, string> = {
  anonymous: 'list_schools',
  operator: 'courses_list',
  member: 'record_progress',
};

/** A reverse proxy to `upstream` that adds `Authorization: Bearer <token>` while a token is set. */
function bearerProxy() {
  const state: { upstream?: URL; token?: string } = {};
  const server = http.createServer((req, res) => {
    const target = state.upstream as URL;
    const headers = { ...req.headers };
    if (state.token) headers.authorization = `Bearer ${state.token}`;
    const forward = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  return { server, state };
}

/** Runs every server scenario against `url`; the results by scenario. */
async function runSuite(url: string): Promise<Map<string, Check[]>> {
  const out = mkdtempSync(join(tmpdir(), 'lectern-conformance-'));
  try {
    // Exit status 1 is expected (the scenarios that do not apply fail); the results tell.
    await run(process.execPath, [cli, 'server', '--url', url, '--suite', 'all', '-o', out], {
      timeout: 60_000,
    }).catch((err: { code?: unknown }) => {
      if (typeof err.code !== 'number') throw err;
    });
    const results = new Map<string, Check[]>();
    for (const dir of readdirSync(out)) {
      const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
      results.set(scenario, JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')));
    }
    return results;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const summary = (checks: Check[]) =>
  checks.map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ''}`).join('\n');

describe('MCP conformance suite (server scenarios)', { skip: ENGINE === 'postgres' && 'SQLite only' }, () => {
  let t: TestApp;
  let app: RunningServer;
  const proxy = bearerProxy();
  let mcpUrl: string;
  const tokens: Record<string, string | undefined> = { anonymous: undefined };
  const results = new Map<string, Map<string, Check[]>>();

  before(async () => {
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.server.address() as { port: number };
    const baseUrl = `http://127.0.0.1:${port}`;
    mcpUrl = `${baseUrl}/mcp`;
    t = await createTestApp({ BASE_URL: baseUrl });
    app = await listen(t.app, '127.0.0.1', 0);
    proxy.state.upstream = new URL(app.url);
    const seeded = await seedSchool(t);
    tokens.operator = (
      await issueTestToken(t, {
        userId: seeded.ownerId,
        schoolId: seeded.schoolId,
        audience: 'operator',
        scopes: [...OPERATOR_SCOPES],
      })
    ).token;
    tokens.member = (
      await issueTestToken(t, {
        userId: seeded.studentId,
        schoolId: seeded.schoolId,
        audience: 'member',
        scopes: ['openid', 'account:read', 'account:write'],
      })
    ).token;
    for (const [caller, token] of Object.entries(tokens)) {
      proxy.state.token = token;
      results.set(caller, await runSuite(mcpUrl));
    }
  });
  after(async () => {
    proxy.server.closeAllConnections();
    await new Promise((resolve) => proxy.server.close(resolve));
    await app.shutdown(1000);
    await t.close();
  });

  it('every scenario the suite has is classified: must pass, SSE warnings only, or not applicable', () => {
    const known = [...MUST_PASS, ...Object.keys(SSE_WARNINGS), ...Object.keys(NOT_APPLICABLE)].sort();
    for (const [caller, byScenario] of results)
      assert.deepEqual([...byScenario.keys()].sort(), known, caller);
    const doc = readFileSync(new URL('../../docs/mcp-conformance.md', import.meta.url), 'utf8');
    for (const scenario of known) assert.ok(doc.includes(`\`${scenario}\``), `docs name ${scenario}`);
  });

  for (const caller of ['anonymous', 'operator', 'member']) {
    it(`the suite ran as the ${caller} caller: its tools/list shows that caller's tools`, () => {
      const tools = results.get(caller)?.get('tools-list')?.[0]?.details?.tools ?? [];
      assert.ok(tools.includes(SIGN_OF[caller]), tools.join(' '));
      if (caller === 'anonymous') assert.equal(tools.length, 5);
    });

    for (const scenario of MUST_PASS) {
      it(`${scenario} passes (${caller})`, () => {
        const checks = results.get(caller)?.get(scenario) ?? [];
        assert.ok(
          checks.some((c) => c.status === 'SUCCESS'),
          `no successful check\n${summary(checks)}`,
        );
        assert.deepEqual(
          checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO'),
          [],
          summary(checks),
        );
      });
    }

    it(`the SSE resumability scenarios only warn that a stateless server has no session (${caller})`, () => {
      for (const [scenario, expected] of Object.entries(SSE_WARNINGS)) {
        const checks = results.get(caller)?.get(scenario) ?? [];
        assert.deepEqual(
          checks.filter((c) => c.status === 'FAILURE'),
          [],
          `${scenario}\n${summary(checks)}`,
        );
        const warned = checks.filter((c) => c.status === 'WARNING').map((c) => c.id);
        assert.ok(
          warned.every((id) => expected.includes(id)),
          `${scenario}: unexpected warnings\n${summary(checks)}`,
        );
      }
    });

    it(`scenarios that do not apply fail only for the documented reason (${caller})`, () => {
      for (const [scenario, reason] of Object.entries(NOT_APPLICABLE)) {
        const checks = results.get(caller)?.get(scenario) ?? [];
        for (const c of checks.filter((x) => x.status === 'FAILURE')) {
          assert.match(c.errorMessage ?? '', reason, `${scenario}/${c.id}`);
        }
      }
    });
  }
});
