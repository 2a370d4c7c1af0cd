import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QUERY } from './account-scenarios.ts';
import { issueMemberToken, toolsCall } from './mcp-scenarios.ts';
import type { Figures, Scenario } from './measure.ts';
import { measure } from './measure.ts';
import { startLectern } from './servers.ts';

const RSS_GOAL_MB = 200;
const LOAD_CONNECTIONS = 64;

/** A /proc/<pid>/status figure in MB (VmRSS now, VmHWM the peak since the process started). */
function procMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return Math.round(kb / 1024);
}

/**
 * A copy of the server compiled to JavaScript by tsc, in a temporary directory beside nothing
 * else: the RSS floor row runs it to measure what Node's TypeScript type stripping holds in
 * memory (architecture.md runs the TypeScript directly, with no build step for the server).
 * Returns its main.js and a cleanup.
 */
function compiledCopy(): { main: string; remove(): void } {
  const root = join(import.meta.dirname, '..');
  const out = mkdtempSync(join(tmpdir(), 'lectern-compiled-'));
  execFileSync(
    join(root, 'node_modules', '.bin', 'tsc'),
    [
      '-p',
      join(root, 'tsconfig.json'),
      '--noEmit',
      'false',
      '--rewriteRelativeImportExtensions',
      '--outDir',
      out,
      '--rootDir',
      root,
    ],
    { stdio: 'inherit' },
  );
  // What the sources read beside themselves (schema.graphql, vendors.json, ../../docs/auth.md).
  cpSync(join(root, 'src'), join(out, 'src'), { recursive: true, filter: (f) => !f.endsWith('.ts') });
  cpSync(join(root, 'package.json'), join(out, 'package.json'));
  symlinkSync(join(root, 'docs'), join(out, 'docs'));
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'));
  return { main: join(out, 'src', 'main.js'), remove: () => rmSync(out, { recursive: true, force: true }) };
}

/**
 * The server's memory under load: idle after start, then 64 connections of the §2.5 GraphQL
 * query, then 64 of MCP tools/call; the peak is the kernel's high-water mark (VmHWM), so no
 * sample can miss it. Linux only. The req/s printed is the MCP part's.
 */
function rssScenario(compiled: boolean): Scenario {
  return {
    name: compiled
      ? 'floor: RSS, the same server compiled to JavaScript (no type stripping)'
      : `RSS under load (${LOAD_CONNECTIONS} connections of GraphQL, then MCP)`,
    async run() {
      let token = '';
      const copy = compiled ? compiledCopy() : undefined;
      const server = await startLectern({
        main: copy?.main,
        prepare: async (env) => {
          token = await issueMemberToken(env, ['openid', 'profile', 'email', 'account:read']);
        },
      });
      try {
        const pid = server.pid!;
        const idle = procMb(pid, 'VmRSS');
        const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
        const graphql = await measure({
          url: `${server.url}/account/graphql`,
          method: 'POST',
          headers: auth,
          body: QUERY,
          connections: LOAD_CONNECTIONS,
        });
        const mcp: Figures = await measure({
          url: `${server.url}/mcp`,
          method: 'POST',
          headers: {
            ...auth,
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
          },
          body: toolsCall(false),
          connections: LOAD_CONNECTIONS,
        });
        const peak = procMb(pid, 'VmHWM');
        const after = procMb(pid, 'VmRSS');
        const figures: Figures = {
          requestsPerSecond: mcp.requestsPerSecond,
          p99Ms: mcp.p99Ms,
          non2xx: graphql.non2xx + mcp.non2xx,
          errors: graphql.errors + mcp.errors,
        };
        const text = `idle ${idle} MB, peak ${peak} MB, after ${after} MB (goal: peak <= ${RSS_GOAL_MB} MB)`;
        return { figures, check: { met: peak <= RSS_GOAL_MB, text } };
      } finally {
        await server.stop();
        copy?.remove();
      }
    },
  };
}

export const rssScenarios: Scenario[] = [rssScenario(false), rssScenario(true)];
