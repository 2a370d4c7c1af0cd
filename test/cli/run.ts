import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { createSchool, type School } from '../../src/domain/school/schools.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import type { Db } from '../../src/store/database.ts';
import type { TestApp } from '../support/app.ts';
import type { TestDatabase } from '../support/database.ts';
import { issueTestToken } from '../support/tokens.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

/** A clean environment for a spawned `lectern`: only what it needs, on the test's database. */
export function cliEnv(database: TestDatabase, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    SEED_DEMO: 'false',
    LECTERN_SECRET: randomBytes(32).toString('base64url'),
    FILES_DIR: `${database.dir}/files`,
    ...database.env,
    ...extra,
  };
}

/** Spawns `node src/main.ts …` on this Node (24 under npm test). */
export function spawnLectern(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [MAIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Runs a command to completion, feeding `stdin`, and collects its output. */
export function runLectern(
  args: string[],
  env: Record<string, string>,
  stdin = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnLectern(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
    });
    child.stderr!.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin!.end(stdin);
  });
}

/** Collects a spawned `serve`'s JSON log lines; resolves with its URL once it logs that it listens. */
export async function untilListening(
  child: ChildProcess,
): Promise<{ url: string; lines: Array<Record<string, unknown>>; stderr(): string }> {
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  let buffer = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      buffer += d;
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>;
        buffer = buffer.slice(nl + 1);
        lines.push(line);
        if (line.msg === 'lectern listening') resolve(String(line.url));
        nl = buffer.indexOf('\n');
      }
    });
    child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${stderr}`)));
  });
  return { url, lines, stderr: () => stderr };
}

/**
 * A school with one owner and an operator token for it, made straight in `db`, for the crash tests
 * whose server is a child process (no in-process test app to ask).
 */
export async function crashSchoolOwner(db: Db, baseUrl: string): Promise<{ school: School; token: string }> {
  const school = await createSchool(db, { name: 'Crash School', subdomain: 'crash-school' });
  const user = await createUser(db, { email: 'crash@example.com', name: 'Crash', passwordHash: null });
  await addRoles(db, school.id, user.id, ['owner']);
  const issuer = { runtime: { db }, config: { baseUrl } } as unknown as TestApp;
  const { token } = await issueTestToken(issuer, {
    userId: user.id,
    schoolId: school.id,
    scopes: OPERATOR_SCOPES,
    audience: 'operator',
  });
  return { school, token };
}
