import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A server process under load; each runs in its own process so the load generator never shares its loop. */
export interface BenchServer {
  readonly url: string;
  readonly dataDir?: string;
  /** The server's process id (RSS is read from /proc). */
  readonly pid?: number;
  /** The DATABASE_URL it serves (a second instance can share it). */
  readonly databaseUrl?: string;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function stopper(child: ChildProcess, cleanup?: () => void): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) {
        cleanup?.();
        resolve();
        return;
      }
      child.once('exit', () => {
        cleanup?.();
        resolve();
      });
      child.kill('SIGTERM');
    });
}

async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server at ${url} did not become healthy`);
}

/**
 * How `lectern serve` runs (bin/server-process.json, read by bin/lectern.js too): its V8 flags and
 * Node's compile cache directory. BENCH_NODE_ARGS (space-separated) replaces the flags to try
 * others.
 */
function serverProcess(): { args: string[]; env: Record<string, string> } {
  const root = join(import.meta.dirname, '..');
  const options = JSON.parse(readFileSync(join(root, 'bin', 'server-process.json'), 'utf8')) as {
    v8Flags: string[];
    compileCache: string;
  };
  const args =
    process.env.BENCH_NODE_ARGS !== undefined
      ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean)
      : options.v8Flags;
  return { args, env: { NODE_COMPILE_CACHE: join(root, options.compileCache) } };
}

/** Starts the hello-world baseline. */
export function startHello(): Promise<BenchServer> {
  return startScript('hello-server.ts');
}

/** Starts the library floors (floor-server.ts). */
export function startFloor(): Promise<BenchServer> {
  return startScript('floor-server.ts');
}

/**
 * Starts the hello-world behind Lectern's request envelope (envelope-server.ts), run like the
 * hello-world (same Node flags), logging at BENCH_LOG_LEVEL as Lectern's rows do.
 */
export function startEnvelope(): Promise<BenchServer> {
  return startScript('envelope-server.ts', { LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' });
}

/** Starts a bench script that answers 200 on `/` once it is up. */
async function startScript(script: string, env: Record<string, string> = {}): Promise<BenchServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(import.meta.dirname, script), String(port)], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...env },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(`${url}/`, child);
  return { url, pid: child.pid, stop: stopper(child) };
}

/** BENCH_DATABASE_URL (postgres://…) runs every Lectern scenario on PostgreSQL instead of SQLite. */
export const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL;
export const BENCH_ENGINE: 'sqlite' | 'postgres' = BENCH_DATABASE_URL ? 'postgres' : 'sqlite';

/** A fresh database for one server: a SQLite file in `dataDir`, or its own PostgreSQL schema. */
export async function freshDatabase(dataDir: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (!BENCH_DATABASE_URL) return { url: `file:${join(dataDir, 'lectern.sqlite')}`, drop: async () => {} };
  const schema = `bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(BENCH_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: BENCH_DATABASE_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}

/**
 * Starts `lectern serve` on a fresh database (SQLite, or PostgreSQL with BENCH_DATABASE_URL) with
 * the demo data. `prepare` may fill the database (after migrations and seed, before the server
 * starts).
 */
export async function startLectern(
  options: {
    prepare?: (env: Record<string, string>) => Promise<void>;
    env?: Record<string, string>;
    /** Serve this database (another instance's) instead of a fresh one; it is not dropped on stop. */
    databaseUrl?: string;
    /** The entry point to run instead of src/main.ts (the RSS floor runs a compiled copy). */
    main?: string;
  } = {},
): Promise<BenchServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'lectern-bench-'));
  const database = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => {} }
    : await freshDatabase(dataDir);
  const url = `http://127.0.0.1:${port}`;
  const serving = serverProcess();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    ...serving.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: url,
    DATABASE_URL: database.url,
    // PostgreSQL needs the secret set (SQLite keeps its own generated one, as before).
    ...(BENCH_DATABASE_URL ? { LECTERN_SECRET: '-1W97cr8pPwPaTMYg3rYW9TzrIi0MGjxPpuubEMx38E' } : {}),
    // BENCH_LOG_LEVEL=info measures the access log's cost (one line per request at info).
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    NODE_ENV: 'development',
    SEED_DEMO: 'true',
    ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
    ...options.env,
  };
  const main = options.main ?? join(import.meta.dirname, '..', 'src', 'main.ts');
  if (options.prepare) {
    // With the server's flags, as `npx lectern seed` would run: Node keys its compile cache by them.
    const seed = spawn(process.execPath, [...serving.args, main, 'seed'], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await new Promise((r) => seed.once('exit', r));
    await options.prepare(env);
  }
  const child = spawn(process.execPath, [...serving.args, main, 'serve'], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForHealth(`${url}/healthz`, child);
  const cleanup = () => {
    rmSync(dataDir, { recursive: true, force: true });
    void database.drop();
  };
  return { url, dataDir, pid: child.pid, databaseUrl: database.url, stop: stopper(child, cleanup) };
}

/** The peer (peer-server.ts): node-oidc-provider in memory, with tokens it minted for itself. */
export interface PeerServer extends BenchServer {
  readonly accessToken: string;
  readonly refreshTokens: string[];
}

export async function startPeer(refreshTokens: number): Promise<PeerServer> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, 'peer-server.ts'), String(port), String(refreshTokens)],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const end = out.indexOf('\n');
      if (end >= 0) resolve(out.slice(0, end));
    });
    child.once('exit', (code) => reject(new Error(`peer exited with ${code}`)));
  });
  const minted = JSON.parse(line) as { accessToken: string; refreshTokens: string[] };
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: stopper(child), ...minted };
}
