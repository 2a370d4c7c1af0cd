import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A server process under load; each runs in its own process so the load generator never shares its loop. */
export interface BenchServer {
  readonly url: string;
  readonly dataDir?: string;
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

/** Starts the hello-world baseline. */
export function startHello(): Promise<BenchServer> {
  return startScript('hello-server.ts');
}

/** Starts the library floors (floor-server.ts). */
export function startFloor(): Promise<BenchServer> {
  return startScript('floor-server.ts');
}

/** Starts a bench script that answers 200 on `/` once it is up. */
async function startScript(script: string): Promise<BenchServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(import.meta.dirname, script), String(port)], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(`${url}/`, child);
  return { url, stop: stopper(child) };
}

/**
 * Starts `lectern serve` on a fresh SQLite database with the demo data. `prepare` may fill the
 * database (after migrations and seed, before the server starts).
 */
export async function startLectern(
  options: { prepare?: (env: Record<string, string>) => Promise<void>; env?: Record<string, string> } = {},
): Promise<BenchServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'lectern-bench-'));
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: url,
    DATABASE_URL: `file:${join(dataDir, 'lectern.sqlite')}`,
    // BENCH_LOG_LEVEL=info measures the access log's cost (one line per request at info).
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    NODE_ENV: 'development',
    SEED_DEMO: 'true',
    ...options.env,
  };
  const main = join(import.meta.dirname, '..', 'src', 'main.ts');
  if (options.prepare) {
    const seed = spawn(process.execPath, [main, 'seed'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    await new Promise((r) => seed.once('exit', r));
    await options.prepare(env);
  }
  const child = spawn(process.execPath, [main, 'serve'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  await waitForHealth(`${url}/healthz`, child);
  return { url, dataDir, stop: stopper(child, () => rmSync(dataDir, { recursive: true, force: true })) };
}
